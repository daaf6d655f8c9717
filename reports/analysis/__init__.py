"""The website analysis engine of interface A.

from reports.analysis import AnalysisError, analyze

result = analyze("https://example.com/")  # raises AnalysisError with a message for the user
result.score, result.rating, result.to_json()
"""

from reports.analysis.engine import analyze
from reports.analysis.errors import AnalysisError
from reports.analysis.result import AnalysisResult

__all__ = ["AnalysisError", "AnalysisResult", "analyze"]
