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
    label: str  # aria-label(ledby), title, an image's alt or an svg's title: what a screen reader announces
    role: str = ""
    name_attribute: str = ""  # the old `<a name>` anchor

    @property
    def accessible_name(self) -> str:
        return self.text or self.label


@dataclass(frozen=True)
class Control:
    """A button or form field, with what a screen reader would announce for it ("" if nothing)."""

    kind: str  # "button", "input[type=text]", "select", ...
    identifier: str  # id, name or a short snippet: evidence for the user
    name: str


@dataclass(frozen=True)
class Image:
    src: str  # absolute ("" when the img has no src)
    alt: str | None
    source_types: tuple[str, ...] = ()  # types offered by <source> siblings inside a <picture>
    width: str | None = None  # the attributes as written
    height: str | None = None


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
    doctype: "Doctype | None" = None  # None: the document has none
    lang: str = ""
    titles: list[str] = field(default_factory=list)
    meta: dict[str, list[str]] = field(default_factory=dict)  # name or property (lower-case) -> contents
    meta_http_equiv: dict[str, str] = field(default_factory=dict)
    meta_charset: str | None = None
    canonicals: list[str] = field(default_factory=list)
    canonical_hrefs: list[str] = field(default_factory=list)  # as written
    hreflangs: list[tuple[str, str]] = field(default_factory=list)  # (hreflang, absolute href)
    icons: list[str] = field(default_factory=list)
    stylesheets: list[str] = field(default_factory=list)
    scripts: list[Script] = field(default_factory=list)
    json_ld: list[str] = field(default_factory=list)
    headings: dict[str, list[str]] = field(default_factory=dict)  # "h1".."h6" -> texts
    heading_outline: list[tuple[int, str]] = field(default_factory=list)  # (level, text) in document order
    images: list[Image] = field(default_factory=list)
    media: list[str] = field(default_factory=list)  # audio/video/source/track URLs
    iframes: list[str] = field(default_factory=list)
    untitled_iframes: list[str] = field(default_factory=list)  # iframes a screen reader cannot name
    plugins: list[tuple[str, str]] = field(default_factory=list)  # <object>/<embed>: (url, type)
    links: list[Link] = field(default_factory=list)
    buttons: list[Control] = field(default_factory=list)
    form_fields: list[Control] = field(default_factory=list)
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
    page = ParsedPage(url=url, html_length=len(text), doctype=read_doctype(text))
    absolute = UrlResolver(_base_url(tree, url))
    host = url_host(url)

    if tree.root is not None:
        page.lang = (tree.root.attributes.get("lang") or "").strip()

    # An <svg> may carry its own <title> (a tooltip), which is not the page's title.
    page.titles = [_text(node) for node in tree.css("title") if not _inside_svg(node)]
    _read_meta(tree, page)
    _read_link_tags(tree, page, absolute)
    for node in tree.css("script"):
        _read_script(node, page, absolute)
    page.headings = {f"h{level}": [] for level in range(1, 7)}
    for node in tree.css("h1, h2, h3, h4, h5, h6"):
        text = _text(node)
        page.headings[node.tag or ""].append(text)
        page.heading_outline.append((int((node.tag or "h1")[1]), text))
    page.images = [_image(node, absolute) for node in tree.css("img")]
    page.media = [absolute(node.attributes.get("src")) for node in tree.css(MEDIA_SELECTOR)]
    page.iframes = [absolute(node.attributes.get("src")) or "(no src)" for node in tree.css("iframe")]
    page.untitled_iframes = [
        absolute(node.attributes.get("src")) or "(no src)"
        for node in tree.css("iframe")
        if not _aria_name(node, labels={}) and not _is_hidden(node)
    ]
    page.plugins = [
        (absolute(node.attributes.get("data") or node.attributes.get("src")), node.attributes.get("type") or "")
        for node in tree.css("object, embed")
    ]
    labels = _label_texts(tree)
    page.links = [_link(node, absolute, host, labels) for node in tree.css("a[href]")]
    page.buttons = [_control(node, labels) for node in tree.css(BUTTON_SELECTOR) if not _is_hidden(node)]
    page.form_fields = [
        _control(node, labels)
        for node in tree.css(FIELD_SELECTOR)
        if not _is_hidden(node) and (node.attributes.get("type") or "").strip().lower() not in UNLABELLED_INPUT_TYPES
    ]
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
            page.canonical_hrefs.append((node.attributes.get("href") or "").strip())
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
    attrs = node.attributes
    return Image(
        src=absolute(attrs.get("src")),
        alt=attrs.get("alt"),
        source_types=types,
        width=attrs.get("width"),
        height=attrs.get("height"),
    )


def _link(node: LexborNode, absolute: UrlResolver, host: str, labels: dict[str, str]) -> Link:
    attrs = node.attributes
    href = (attrs.get("href") or "").strip()
    url = absolute(href)
    internal = url_host(url) == host and url.startswith(("http://", "https://"))
    image_alts = " ".join((img.attributes.get("alt") or "") for img in node.css("img"))
    text = _visible_text(node)
    label = _aria_name(node, labels) or image_alts.strip()
    if not text and not label:  # an icon link: an inline svg may carry its name
        label = " ".join(_text(title) for title in node.css("svg title"))
    return Link(
        url=url,
        href=href,
        text=text,
        rel=frozenset((attrs.get("rel") or "").lower().split()),
        target=(attrs.get("target") or "").strip().lower(),
        internal=internal,
        label=label,
        role=(attrs.get("role") or "").strip().lower(),
        name_attribute=(attrs.get("name") or "").strip(),
    )


# What axe-core's button-name and label rules look at (hidden inputs and image buttons aside).
BUTTON_SELECTOR = (
    'button, [role="button"]:not(a), input[type="button" i], input[type="submit" i], input[type="reset" i]'
)
FIELD_SELECTOR = "input, select, textarea"
UNLABELLED_INPUT_TYPES = {"hidden", "button", "submit", "reset", "image"}
# Submit and reset buttons without a value are announced by their default caption.
DEFAULT_BUTTON_NAMES = {"submit": "Submit", "reset": "Reset"}

# Comments and an XML declaration (a comment to the HTML parser) may come before the doctype.
DOCTYPE_RE = re.compile(r"\A\s*(?:(?:<!--.*?-->|<\?.*?>)\s*)*<!doctype\s+([^\s>]+)([^>]*)>", re.IGNORECASE | re.DOTALL)
DOCTYPE_ID_RE = re.compile(r"""(public|system)?\s*(["'])(.*?)\2""", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Doctype:
    name: str
    public_id: str
    system_id: str
    mode: str  # the mode a browser renders in: "no-quirks", "limited-quirks" or "quirks"

    def __str__(self) -> str:
        ids = " ".join(f'"{value}"' for value in (self.public_id, self.system_id) if value)
        return f"<!DOCTYPE {self.name}{' PUBLIC ' + ids if ids else ''}>"


# The HTML standard's doctype table (https://html.spec.whatwg.org/#the-initial-insertion-mode).
QUIRKS_PUBLIC_PREFIXES = (
    "+//silmaril//dtd html pro v0r11 19970101//", "-//as//dtd html 3.0 aswedit + extensions//",
    "-//advasoft ltd//dtd html 3.0 aswedit + extensions//", "-//ietf//dtd html 2.0", "-//ietf//dtd html 3",
    "-//ietf//dtd html level", "-//ietf//dtd html strict", "-//ietf//dtd html//",
    "-//metrius//dtd metrius presentational//",
    "-//microsoft//dtd internet explorer", "-//netscape comm. corp.//dtd", "-//o'reilly and associates//dtd html",
    "-//softquad software//dtd hotmetal pro", "-//softquad//dtd hotmetal pro",
    "-//spyglass//dtd html 2.0 extended//",
    "-//sq//dtd html 2.0 hotmetal + extensions//", "-//sun microsystems corp.//dtd hotjava",
    "-//w3c//dtd html 3", "-//w3c//dtd html 4.0 frameset//", "-//w3c//dtd html 4.0 transitional//",
    "-//w3c//dtd html experimental", "-//w3c//dtd w3 html//", "-//w3o//dtd w3 html", "-//webtechs//dtd mozilla html",
)  # fmt: skip
QUIRKS_PUBLIC_IDS = {"-//w3o//dtd w3 html strict 3.0//en//", "-/w3c/dtd html 4.0 transitional/en", "html"}
HTML401_LOOSE_PREFIXES = ("-//w3c//dtd html 4.01 frameset//", "-//w3c//dtd html 4.01 transitional//")
LIMITED_QUIRKS_PREFIXES = ("-//w3c//dtd xhtml 1.0 frameset//", "-//w3c//dtd xhtml 1.0 transitional//")


def read_doctype(text: str) -> Doctype | None:
    """The document's doctype and the rendering mode it selects, or None if there is none."""
    match = DOCTYPE_RE.match(text[:4096])
    if match is None:
        return None
    name, rest = match.group(1).lower(), match.group(2)
    public_id = system_id = ""
    ids = DOCTYPE_ID_RE.findall(rest)
    keyword = rest.strip().split(None, 1)[0].lower() if rest.strip() else ""
    if keyword == "public" and ids:
        public_id = ids[0][2]
        system_id = ids[1][2] if len(ids) > 1 else ""
    elif keyword == "system" and ids:
        system_id = ids[0][2]
    return Doctype(name, public_id, system_id, _doctype_mode(name, public_id, system_id, has_system=len(ids) > 1))


def _doctype_mode(name: str, public_id: str, system_id: str, *, has_system: bool) -> str:
    public, system = public_id.lower(), system_id.lower()
    if (
        name != "html"
        or public in QUIRKS_PUBLIC_IDS
        or system == "http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd"
        or public.startswith(QUIRKS_PUBLIC_PREFIXES)
        or (not has_system and public.startswith(HTML401_LOOSE_PREFIXES))
    ):
        return "quirks"
    if public.startswith(LIMITED_QUIRKS_PREFIXES) or (has_system and public.startswith(HTML401_LOOSE_PREFIXES)):
        return "limited-quirks"
    return "no-quirks"


def _is_hidden(node: LexborNode) -> bool:
    """Hidden from everyone by itself or an ancestor (as far as the HTML says; stylesheets are not read)."""
    current: LexborNode | None = node
    while current is not None and current.tag not in ("body", "html"):
        if _hides_itself(current):
            return True
        current = current.parent
    return False


def _hides_itself(node: LexborNode) -> bool:
    attrs = node.attributes
    if "hidden" in attrs or (attrs.get("aria-hidden") or "").strip().lower() == "true":
        return True
    if node.tag == "input" and (attrs.get("type") or "").strip().lower() == "hidden":
        return True
    style = (attrs.get("style") or "").replace(" ", "").lower()
    return "display:none" in style or "visibility:hidden" in style


def _visible_text(node: LexborNode) -> str:
    """The node's text without what screen readers skip (aria-hidden parts)."""
    if node.css_first('[aria-hidden="true"]') is None:
        return _text(node)
    clone = LexborHTMLParser(node.html or "")
    for hidden in clone.css('[aria-hidden="true"]'):
        hidden.decompose()
    body = clone.body
    return _text(body) if body is not None else ""


def _label_texts(tree: LexborHTMLParser) -> dict[str, str]:
    """id → text of every element that labels another: `<label for>` targets and aria-labelledby ids."""
    wanted: set[str] = set()
    for node in tree.css("[aria-labelledby]"):
        wanted.update((node.attributes.get("aria-labelledby") or "").split())
    texts: dict[str, str] = {}
    for node in tree.css("label[for]"):
        target = (node.attributes.get("for") or "").strip()
        if target:
            text = _text(node) or _aria_name(node, {})
            texts[f"label:{target}"] = (texts.get(f"label:{target}", "") + " " + text).strip()
    for identifier in wanted:
        node = tree.css_first(f'[id="{identifier}"]') if '"' not in identifier else None
        if node is not None:
            texts[identifier] = _text(node)
    return texts


def _aria_name(node: LexborNode, labels: dict[str, str]) -> str:
    attrs = node.attributes
    labelled_by = " ".join(labels.get(i, "") for i in (attrs.get("aria-labelledby") or "").split()).strip()
    return labelled_by or (attrs.get("aria-label") or "").strip() or (attrs.get("title") or "").strip()


def _control(node: LexborNode, labels: dict[str, str]) -> Control:
    attrs = node.attributes
    tag = node.tag or ""
    input_type = (attrs.get("type") or "text").strip().lower() if tag == "input" else ""
    kind = f"input[type={input_type}]" if tag == "input" else tag
    identifier = attrs.get("id") or attrs.get("name") or (node.html or "")[:80]
    name = _aria_name(node, labels)
    if tag == "input" and input_type in ("button", "submit", "reset"):
        name = name or (attrs.get("value") or "").strip() or DEFAULT_BUTTON_NAMES.get(input_type, "")
    elif tag in ("button",) or attrs.get("role") == "button":
        name = (
            name
            or _visible_text(node)
            or " ".join((img.attributes.get("alt") or "") for img in node.css("img")).strip()
            or " ".join(_text(title) for title in node.css("svg title"))
        )
    else:
        wrapping = node.parent
        while wrapping is not None and wrapping.tag != "label":
            wrapping = wrapping.parent
        field_id = (attrs.get("id") or "").strip()
        name = (
            name
            or (labels.get(f"label:{field_id}", "") if field_id else "")
            or (_text(wrapping) if wrapping is not None else "")
            or (attrs.get("placeholder") or "").strip()
        )
    return Control(kind=kind, identifier=identifier, name=name)
