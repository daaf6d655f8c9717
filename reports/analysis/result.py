"""What `analyze()` returns."""

from dataclasses import dataclass


@dataclass(frozen=True)
class AnalysisResult:
    """A scored analysis of one page; every field is JSON-serialisable."""

    url: str
    final_url: str
    score: int
    rating: str
    results: dict
    timing: dict

    def to_json(self) -> dict:
        return {
            "url": self.url,
            "final_url": self.final_url,
            "score": self.score,
            "rating": self.rating,
            "results": self.results,
            "timing": self.timing,
        }
