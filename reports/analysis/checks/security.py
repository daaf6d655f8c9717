"""Security checks: transport security and what the page gives away."""

import re

from reports.analysis.checks.base import HIGH, LOW, Category, Outcome, capped, directives
from reports.analysis.context import Context

category = Category("security")

EMAIL_RE = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
VERSION_RE = re.compile(r"\d+(\.\d+)+|/\d")
# Headers that exist only to name the software behind the site.
DISCLOSING_HEADERS = ("x-powered-by", "x-aspnet-version", "x-aspnetmvc-version", "x-generator")


def _is_https(context: Context) -> bool:
    return context.document.url.startswith("https://")


@category.check("https_encryption", HIGH)
def https_encryption(context: Context) -> Outcome:
    """The page is served over HTTPS (Lighthouse `is-on-https`); browsers mark plain HTTP "not secure"."""
    url = context.document.url
    return Outcome(url, {} if _is_https(context) else {"not_https": url})


@category.check("mixed_content", HIGH)
def mixed_content(context: Context) -> Outcome:
    """An HTTPS page loads nothing over plain HTTP: browsers block such scripts and frames and mark the
    page not secure, so it is as unsafe as no HTTPS (Lighthouse `is-on-https` fails both alike)."""
    if not _is_https(context):
        return Outcome([])  # the whole page is insecure: https_encryption reports that
    page = context.page
    urls = [*page.resource_urls, *(url for url, _ in page.plugins if url)]
    insecure = list(dict.fromkeys(url for url in urls if url.startswith("http://")))
    return Outcome(capped(insecure), {"insecure_resources": capped(insecure)} if insecure else {})


@category.check("server_signature", LOW)
def server_signature(context: Context) -> Outcome:
    """Headers do not name the server software's version (OWASP "Fingerprint web server"); it eases
    attacks on known holes but is no hole itself, hence low importance."""
    headers = context.document.headers
    server = headers.get("server")
    revealed = {name: headers[name] for name in DISCLOSING_HEADERS if name in headers}
    if server and VERSION_RE.search(server):
        revealed = {"server": server, **revealed}
    return Outcome(server, {"revealed": revealed} if revealed else {})


@category.check("unsafe_cross_origin_links", LOW)
def unsafe_cross_origin_links(context: Context) -> Outcome:
    """target=_blank links to other sites carry rel=noopener. Browsers imply it since 2021 and Lighthouse
    dropped the audit, so only visitors with old browsers are exposed: low importance."""
    unsafe = [
        link.url
        for link in context.page.links
        if link.target == "_blank"
        and not link.internal
        and link.url.startswith(("http://", "https://"))
        and not {"noopener", "noreferrer"} & link.rel
    ]
    return Outcome(len(unsafe), {"missing_noopener": capped(unsafe)} if unsafe else {})


@category.check("hsts", LOW)
def hsts(context: Context) -> Outcome:
    """A Strict-Transport-Security header with a max-age (Lighthouse `has-hsts`, informational there)."""
    header = context.document.headers.get("strict-transport-security")
    if not _is_https(context):
        return Outcome(header, {"not_https": None})  # browsers ignore HSTS sent over plain HTTP
    if not header:
        return Outcome(None, {"missing": None})
    max_age = directives(header, ";").get("max-age", "")
    if not max_age.isdigit() or int(max_age) == 0:
        return Outcome(header, {"bad_format": header})
    return Outcome(header)


@category.check("plaintext_email", LOW)
def plaintext_email(context: Context) -> Outcome:
    """No e-mail address in the text or mailto: links, where address harvesters collect them."""
    page = context.page
    mailto = [
        link.href[len("mailto:") :].split("?", 1)[0] for link in page.links if link.href.lower().startswith("mailto:")
    ]
    found = list(dict.fromkeys([*EMAIL_RE.findall(page.text), *filter(None, mailto)]))
    return Outcome(capped(found), {"found": capped(found)} if found else {})


@category.check("content_security_policy", LOW)
def content_security_policy(context: Context) -> Outcome:
    """A Content-Security-Policy, where present, restricts scripts: a script-src (or default-src) without
    'unsafe-inline' unless nonces or hashes are used, and no bare `*`, `http:` or `https:` source
    (Lighthouse `csp-xss`'s rules). A policy is optional defence in depth, so none is no failure."""
    policy = context.document.headers.get("content-security-policy") or context.source_page.meta_http_equiv.get(
        "content-security-policy"
    )
    if not policy:
        return Outcome(None)
    weaknesses = _csp_weaknesses(policy)
    return Outcome(policy, {"weak": weaknesses} if weaknesses else {})


def _csp_weaknesses(policy: str) -> list[str]:
    sources: dict[str, list[str]] = {}
    for part in policy.split(";"):
        name, *values = part.strip().split()
        if name:
            sources[name.lower()] = [value.lower() for value in values] if values else []
    scripts = sources.get("script-src", sources.get("default-src"))
    if scripts is None:
        return ["no script-src or default-src: scripts are not restricted"]
    weaknesses = []
    hashed = any(value.startswith(("'nonce-", "'sha256-", "'sha384-", "'sha512-")) for value in scripts)
    if "'unsafe-inline'" in scripts and not hashed:
        weaknesses.append("'unsafe-inline' allows injected inline scripts")
    weaknesses += [f"{value} allows scripts from anywhere" for value in scripts if value in ("*", "http:", "https:")]
    return weaknesses
