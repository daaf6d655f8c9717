"""The website analysis engine of interface A.

from reports.analysis import AnalysisError, analyze

result = analyze("https://example.com/")  # raises AnalysisError with a message for the user
result.score, result.rating, result.to_json()
"""

from .engine import analyze
from .errors import AnalysisError
from .result import AnalysisResult

__all__ = ["AnalysisError", "AnalysisResult", "analyze"]
