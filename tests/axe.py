"""axe-core in the browser tests: the accessibility rules a page breaks, serious and critical ones.

axe-core's script is vendored in tests/fixtures/axe (never served to users) and run through
Playwright's `evaluate`, which the site's CSP (script-src 'self') does not apply to, so the
pages are tested with their real policy. `PAGES` is the site-wide sweep
(tests/foundation/test_axe_browser.py): a new page gets checked by adding its path there.
"""

from functools import cache
from pathlib import Path

AXE_VERSION = "4.14.1"
AXE_SCRIPT = Path(__file__).parent / "fixtures" / "axe" / "axe.min.js"
BLOCKING = ("serious", "critical")

# Every page of the site, as (path, who): "anonymous", "signed-in" (as alice) or "admin-mode" (alice
# in C's admin mode). A path may name objects the sweep makes: {paste}, {encrypted_paste},
# {protected_paste}, {burning_paste}, {discussed_paste}, {files_paste} (three files, edited),
# {encrypted_files_paste}, {attached_paste}, {report}, {link}, {protected_link}, {disabled_link}
# (tests/foundation/test_axe_browser.py::objects).
PAGES: list[tuple[str, str]] = [
    ("/", "anonymous"),
    ("/", "signed-in"),
    ("/no-such-page", "anonymous"),
    ("/api/docs/", "signed-in"),
    # B: pastes
    ("/pastes/", "anonymous"),
    ("/pastes/", "signed-in"),
    ("/pastes/new", "signed-in"),
    ("/pastes/{paste}", "anonymous"),
    ("/pastes/{paste}", "signed-in"),
    ("/pastes/{paste}/edit", "signed-in"),
    ("/pastes/{paste}/delete", "signed-in"),
    ("/pastes/{paste}/fork", "signed-in"),
    ("/pastes/{encrypted_paste}", "anonymous"),
    ("/pastes/{protected_paste}", "anonymous"),
    ("/pastes/{burning_paste}", "anonymous"),
    ("/pastes/{discussed_paste}", "anonymous"),  # the discussion, and the embed snippets
    ("/pastes/{discussed_paste}", "signed-in"),  # the owner's Delete buttons on comments
    ("/pastes/{paste}/embed", "anonymous"),  # the embed, as another site's iframe shows it
    ("/pastes/{files_paste}", "anonymous"),
    ("/pastes/{files_paste}/edit", "signed-in"),
    ("/pastes/{files_paste}/history", "anonymous"),
    ("/pastes/{files_paste}/history", "signed-in"),
    ("/pastes/{encrypted_files_paste}", "anonymous"),
    ("/pastes/{attached_paste}", "anonymous"),  # an image previewed and a PDF
    ("/pastes/{attached_paste}", "signed-in"),  # with the owner's attach and remove forms
    # A: reports
    ("/reports/", "signed-in"),
    ("/reports/projects", "signed-in"),
    ("/reports/new", "signed-in"),
    ("/reports/{report}", "anonymous"),
    # C: short links
    ("/s/", "anonymous"),
    ("/s/", "signed-in"),
    ("/s/login", "anonymous"),
    ("/s/stats", "signed-in"),
    ("/s/stats/{link}", "signed-in"),
    ("/s/edit/{link}", "signed-in"),  # with its options and preview fields (issue 46)
    ("/s/edit/{link}/rules", "signed-in"),  # the redirect rules page (issue 46); the preview robots' card
    # page is checked by tests/shortener/test_rules_browser.py, which holds back its refresh to the target
    ("/s/delete/{link}", "signed-in"),
    ("/s/{protected_link}", "anonymous"),  # the password page on the way (401)
    ("/s/report/{link}", "anonymous"),
    ("/s/{disabled_link}", "anonymous"),  # a link disabled by moderation (410)
    ("/s/moderation", "admin-mode"),
    ("/s/domains", "admin-mode"),  # with two domains' forms: tests/shortener/test_domains_browser.py
    # The account area (allauth's pages in the site's layout); sign-up is open during the sweep.
    ("/accounts/login/", "anonymous"),
    ("/accounts/signup/", "anonymous"),
    ("/accounts/confirm-email/", "anonymous"),
    ("/accounts/password/reset/", "anonymous"),
    ("/accounts/email/", "signed-in"),
    ("/accounts/password/change/", "signed-in"),
    ("/accounts/keys/", "signed-in"),
    ("/accounts/", "signed-in"),
    ("/accounts/sessions/", "signed-in"),
    ("/accounts/profile/", "signed-in"),
    ("/accounts/export/", "signed-in"),
    ("/accounts/delete/", "signed-in"),
    # Two-factor sign-in (allauth.mfa); alice has recovery codes, no TOTP, no passkey (the sweep's objects).
    ("/accounts/2fa/", "signed-in"),
    ("/accounts/2fa/totp/activate/", "signed-in"),
    ("/accounts/2fa/recovery-codes/", "signed-in"),
    ("/accounts/2fa/webauthn/", "signed-in"),
    ("/accounts/2fa/webauthn/add/", "signed-in"),
    ("/accounts/reauthenticate/", "signed-in"),  # the password asked again before those
]

# Pages drawn by their own scripts, and what shows they are done.
READY = {"/api/docs/": ".swagger-ui .opblock-summary"}


@cache
def axe_source() -> str:
    return AXE_SCRIPT.read_text(encoding="utf-8")


def axe_violations(page, impacts: tuple[str, ...] = BLOCKING) -> list[dict]:
    """Run axe-core on the page as it is now; the violations of the given impacts, each with its nodes."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(axe_source())
    results = page.evaluate(
        "() => axe.run(document, {resultTypes: ['violations']})"
        ".then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.map(n => n.target.join(' ') + ' — ' + n.failureSummary)})))"
    )
    return [violation for violation in results if violation["impact"] in impacts]


def describe(violations: list[dict]) -> str:
    """The violations, one rule a paragraph, for an assertion message."""
    return "\n\n".join(
        f"{violation['id']} ({violation['impact']}): {violation['help']}\n  " + "\n  ".join(violation["nodes"][:5])
        for violation in violations
    )
