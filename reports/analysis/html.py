"""Decoding and parsing the fetched document once, into the facts the checks read.

Parsing is selectolax's Lexbor engine (an HTML5-conformant parser); regular
expressions only ever look at extracted text, never at markup.
"""

import codecs
import re
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

# Letters, allowing inner apostrophes and hyphens ("don't", "well-made"); digits are not words.
WORD_RE = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")

# Elements whose text a reader never sees.
INVISIBLE_TAGS = ["script", "style", "noscript", "template", "svg"]

MEDIA_SELECTOR = "audio[src], video[src], source[src], track[src]"

DEPRECATED_TAGS = [
    "acronym",
    "applet",
    "basefont",
    "big",
    "blink",
    "center",
    "dir",
    "font",
    "frame",
    "frameset",
    "isindex",
    "marquee",
    "noframes",
    "strike",
    "tt",
]


@dataclass(frozen=True)
class Decoded:
    """The document's text and what we learnt about its character encoding."""

    text: str
    encoding: str  # the codec actually used
    declared: str | None  # from the Content-Type header or the page's <meta>, as written
    declared_in: str | None  # "header", "meta" or "bom"
    unknown_declared: bool  # the declared charset is not one Python knows
    invalid_at: int | None  # offset of the first byte that is invalid in `encoding`


@dataclass(frozen=True)
class Link:
    url: str  # absolute
    href: str  # as written
    text: str
    rel: frozenset[str]
    target: str
    internal: bool
    label: str  # aria-label, title or an image's alt: what a screen reader would announce


@dataclass(frozen=True)
class Image:
    src: str  # absolute ("" when the img has no src)
    alt: str | None
    source_types: tuple[str, ...] = ()  # types offered by <source> siblings inside a <picture>


@dataclass(frozen=True)
class Script:
    src: str  # absolute
    is_async: bool
    is_deferred: bool
    is_module: bool
    in_head: bool


@dataclass
class ParsedPage:
    """Everything the checks need from the HTML, extracted in one pass over the tree."""

    url: str
    html_length: int
    has_doctype: bool = False
    lang: str = ""
    titles: list[str] = field(default_factory=list)
    meta: dict[str, list[str]] = field(default_factory=dict)  # name or property (lower-case) -> contents
    meta_http_equiv: dict[str, str] = field(default_factory=dict)
    meta_charset: str | None = None
    canonicals: list[str] = field(default_factory=list)
    hreflangs: list[tuple[str, str]] = field(default_factory=list)  # (hreflang, absolute href)
    icons: list[str] = field(default_factory=list)
    stylesheets: list[str] = field(default_factory=list)
    scripts: list[Script] = field(default_factory=list)
    json_ld: list[str] = field(default_factory=list)
    headings: dict[str, list[str]] = field(default_factory=dict)  # "h1".."h6" -> texts
    images: list[Image] = field(default_factory=list)
    media: list[str] = field(default_factory=list)  # audio/video/source/track URLs
    iframes: list[str] = field(default_factory=list)
    plugins: list[tuple[str, str]] = field(default_factory=list)  # <object>/<embed>: (url, type)
    links: list[Link] = field(default_factory=list)
    inline_styles: list[str] = field(default_factory=list)  # tag names carrying a style attribute
    deprecated_tags: Counter = field(default_factory=Counter)
    dom_nodes: int = 0
    text: str = ""  # the visible text, whitespace collapsed
    words: list[str] = field(default_factory=list)  # lower-case words of the visible text

    @property
    def resource_urls(self) -> list[str]:
        """Sub-resources a browser loads for this page, in document order, without duplicates."""
        urls = [*self.stylesheets, *(s.src for s in self.scripts), *(i.src for i in self.images), *self.media]
        return list(dict.fromkeys(url for url in [*urls, *self.iframes] if url and url != "(no src)"))


def decode(body: bytes, header_charset: str | None) -> Decoded:
    """Decode the body: the header's charset wins, then a BOM, then <meta charset>, then UTF-8."""
    declared, declared_in = (header_charset, "header") if header_charset else (None, None)
    if declared is None:
        for bom, name in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
            if body.startswith(bom):
                declared, declared_in = name, "bom"
                break
    if declared is None:
        declared = _meta_charset(body)
        declared_in = "meta" if declared else None
    encoding = _codec_name(declared) if declared else None
    unknown = declared is not None and encoding is None
    encoding = encoding or "utf-8"
    try:
        text = body.decode(encoding)
        invalid_at = None
    except UnicodeDecodeError as exc:
        text = body.decode(encoding, errors="replace")
        invalid_at = exc.start
    if text.startswith("\ufeff"):
        text = text[1:]
    return Decoded(text, encoding, declared, declared_in, unknown, invalid_at)


def _codec_name(label: str) -> str | None:
    try:
        return codecs.lookup(label.strip()).name
    except LookupError:
        return None


def _meta_charset(body: bytes) -> str | None:
    # The HTML spec's prescan only looks at the first 1024 bytes; parsing them is cheap.
    head = LexborHTMLParser(body[:1024].decode("ascii", errors="replace"))
    for meta in head.css("meta[charset], meta[http-equiv]"):
        if meta.attributes.get("charset"):
            return meta.attributes["charset"].strip()
        if (meta.attributes.get("http-equiv") or "").lower() == "content-type":
            charset = content_type_charset(meta.attributes.get("content") or "")
            if charset:
                return charset
    return None


def content_type_charset(content_type: str) -> str | None:
    for parameter in content_type.split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None


def parse(text: str, url: str) -> ParsedPage:
    """Parse the decoded document fetched from `url` (used to resolve relative links)."""
    tree = LexborHTMLParser(text)
    page = ParsedPage(url=url, html_length=len(text))
    absolute = UrlResolver(_base_url(tree, url))
    host = url_host(url)

    document = tree.root.parent if tree.root is not None else None
    child = document.child if document is not None else None
    while child is not None:
        if child.tag == "-doctype":
            page.has_doctype = True
        child = child.next
    if tree.root is not None:
        page.lang = (tree.root.attributes.get("lang") or "").strip()

    # An <svg> may carry its own <title> (a tooltip), which is not the page's title.
    page.titles = [_text(node) for node in tree.css("title") if not _inside_svg(node)]
    _read_meta(tree, page)
    _read_link_tags(tree, page, absolute)
    for node in tree.css("script"):
        _read_script(node, page, absolute)
    for level in range(1, 7):
        tag = f"h{level}"
        page.headings[tag] = [_text(node) for node in tree.css(tag)]
    page.images = [_image(node, absolute) for node in tree.css("img")]
    page.media = [absolute(node.attributes.get("src")) for node in tree.css(MEDIA_SELECTOR)]
    page.iframes = [absolute(node.attributes.get("src")) or "(no src)" for node in tree.css("iframe")]
    page.plugins = [
        (absolute(node.attributes.get("data") or node.attributes.get("src")), node.attributes.get("type") or "")
        for node in tree.css("object, embed")
    ]
    page.links = [_link(node, absolute, host) for node in tree.css("a[href]")]
    page.inline_styles = [node.tag or "" for node in tree.css("[style]")]
    page.deprecated_tags = Counter({tag: n for tag in DEPRECATED_TAGS if (n := len(tree.css(tag)))})
    page.dom_nodes = len(tree.css("*"))

    tree.strip_tags(INVISIBLE_TAGS)
    page.text = " ".join(tree.body.text(separator=" ").split()) if tree.body is not None else ""
    page.words = WORD_RE.findall(page.text.lower())
    return page


class UrlResolver:
    """Resolves hrefs against the page's base URL, remembering each answer.

    Pages repeat the same few hrefs many times and urljoin() is slow, so absolute
    and root-relative hrefs take a shortcut and everything else is cached.
    """

    def __init__(self, base: str) -> None:
        self.base = base
        parts = urlsplit(base)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.cache: dict[str, str] = {}

    def __call__(self, href: str | None) -> str:
        href = (href or "").strip()
        if not href:
            return ""
        if href.startswith(("https://", "http://")) and "/." not in href:
            return href
        if href[0] == "/" and not href.startswith("//") and "/." not in href and "\\" not in href:
            return self.origin + href
        url = self.cache.get(href)
        if url is None:
            try:
                url = urljoin(self.base, href)
            except ValueError:
                url = href  # malformed (e.g. an unclosed IPv6 bracket); kept as written for the evidence
            self.cache[href] = url
        return url


def _base_url(tree: LexborHTMLParser, url: str) -> str:
    base = tree.css_first("base[href]")
    return urljoin(url, base.attributes.get("href") or "") if base is not None else url


def url_host(url: str) -> str:
    """The lower-case host of `url`, or "" when it has none or is malformed."""
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def _inside_svg(node: LexborNode) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.tag == "svg":
            return True
        parent = parent.parent
    return False


def _text(node: LexborNode) -> str:
    return " ".join(node.text(separator=" ").split())


def _read_meta(tree: LexborHTMLParser, page: ParsedPage) -> None:
    for node in tree.css("meta"):
        attrs = node.attributes
        if attrs.get("charset"):
            page.meta_charset = page.meta_charset or attrs["charset"].strip()
        key = (attrs.get("name") or attrs.get("property") or "").strip().lower()
        if key:
            page.meta.setdefault(key, []).append((attrs.get("content") or "").strip())
        http_equiv = (attrs.get("http-equiv") or "").strip().lower()
        if http_equiv:
            page.meta_http_equiv[http_equiv] = (attrs.get("content") or "").strip()
            if http_equiv == "content-type" and page.meta_charset is None:
                page.meta_charset = content_type_charset(attrs.get("content") or "")


def _read_link_tags(tree: LexborHTMLParser, page: ParsedPage, absolute: UrlResolver) -> None:
    for node in tree.css("link[rel]"):
        rel = set((node.attributes.get("rel") or "").lower().split())
        href = absolute(node.attributes.get("href"))
        if "canonical" in rel:
            page.canonicals.append(href)
        if "alternate" in rel and node.attributes.get("hreflang") is not None:
            page.hreflangs.append(((node.attributes.get("hreflang") or "").strip(), href))
        if "icon" in rel or "apple-touch-icon" in rel:
            page.icons.append(href)
        if "stylesheet" in rel and href:
            page.stylesheets.append(href)


def _read_script(node: LexborNode, page: ParsedPage, absolute: UrlResolver) -> None:
    attrs = node.attributes
    script_type = (attrs.get("type") or "").strip().lower()
    if script_type == "application/ld+json":
        page.json_ld.append(node.text() or "")
        return
    src = absolute(attrs.get("src"))
    if src:
        parent = node.parent
        page.scripts.append(
            Script(
                src=src,
                is_async="async" in attrs,
                is_deferred="defer" in attrs,
                is_module=script_type == "module",
                in_head=parent is not None and parent.tag == "head",
            )
        )


def _image(node: LexborNode, absolute: UrlResolver) -> Image:
    parent = node.parent
    in_picture = parent is not None and parent.tag == "picture"
    types = tuple((s.attributes.get("type") or "").lower() for s in parent.css("source")) if in_picture else ()
    return Image(src=absolute(node.attributes.get("src")), alt=node.attributes.get("alt"), source_types=types)


def _link(node: LexborNode, absolute: UrlResolver, host: str) -> Link:
    attrs = node.attributes
    href = (attrs.get("href") or "").strip()
    url = absolute(href)
    internal = url_host(url) == host and url.startswith(("http://", "https://"))
    image_alts = " ".join((img.attributes.get("alt") or "") for img in node.css("img"))
    return Link(
        url=url,
        href=href,
        text=_text(node),
        rel=frozenset((attrs.get("rel") or "").lower().split()),
        target=(attrs.get("target") or "").strip().lower(),
        internal=internal,
        label=(attrs.get("aria-label") or attrs.get("title") or image_alts).strip(),
    )
