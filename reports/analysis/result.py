"""What `analyze()` returns."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class AnalysisResult:
    """A scored analysis of one page; every field is JSON-serialisable."""

    url: str
    final_url: str
    score: int
    rating: str
    results: dict
    timing: dict
    # category → 0-100: SEO and accessibility as Lighthouse scores them, the others by the overall score's
    # rules (scoring.category_scores).
    scores: dict = field(default_factory=dict)
    # Which document the DOM checks read: {"document": "source"} or {"document": "rendered", …};
    # a failed rendering says why in "render_error".
    rendering: dict = field(default_factory=lambda: {"document": "source"})
    # The page's links (absolute), for a site audit's crawl to follow; not part of the stored result.
    links: list = field(default_factory=list)

    @property
    def metrics(self) -> dict | None:
        """The lab metrics of a rendered page (FCP, LCP, TBT, CLS), else None."""
        return self.rendering.get("metrics")

    def to_json(self) -> dict:
        return {
            "url": self.url,
            "final_url": self.final_url,
            "score": self.score,
            "rating": self.rating,
            "scores": self.scores,
            "results": self.results,
            "timing": self.timing,
            "rendering": self.rendering,
        }
