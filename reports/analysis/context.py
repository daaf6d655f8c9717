"""What the checks look at: the fetched document, its parsed HTML and the site's other files."""

from dataclasses import dataclass, field

from reports.analysis.fetch import Fetched
from reports.analysis.html import Decoded, ParsedPage


@dataclass(frozen=True)
class Probe:
    """The outcome of one sub-request: the response, or why there is none."""

    url: str
    fetched: Fetched | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.fetched is not None and self.fetched.ok

    @property
    def status(self) -> int | None:
        return self.fetched.status if self.fetched is not None else None

    @property
    def size(self) -> int | None:
        """The resource's size in bytes as served: Content-Length, else what was read (None if unknown)."""
        if self.fetched is None or not self.ok:
            return None
        declared = self.fetched.headers.get("content-length", "")
        if declared.isdigit():
            return int(declared)
        return None if self.fetched.truncated or not self.fetched.body else len(self.fetched.body)


@dataclass
class Resources:
    """The sub-requests made for one page (None: not attempted, e.g. over the sub-request cap)."""

    robots: Probe | None = None
    sitemap: Probe | None = None
    not_found: Probe | None = None
    llms_txt: Probe | None = None
    favicon: Probe | None = None
    assets: dict[str, Probe] = field(default_factory=dict)
    alpn: str | None = None  # protocol chosen by TLS ALPN when we offered h2
    alpn_error: str | None = None

    @property
    def count(self) -> int:
        probes = [self.robots, self.sitemap, self.not_found, self.llms_txt, self.favicon]
        return sum(probe is not None for probe in probes) + len(self.assets)


@dataclass(frozen=True)
class Context:
    """What the checks read. Network checks use `document`; DOM checks use `page`, which is the
    rendered document when the page was rendered (REPORTS_RENDER) and the source otherwise."""

    url: str  # as requested
    document: Fetched
    decoded: Decoded
    page: ParsedPage
    resources: Resources
    thresholds: dict[str, float]
    source_page: ParsedPage | None = None  # the HTML as served; None means the same as `page`
    rendered: dict | None = None  # facts only a browser knows (contrast, target sizes …); None: not rendered

    def __post_init__(self) -> None:
        if self.source_page is None:
            object.__setattr__(self, "source_page", self.page)
