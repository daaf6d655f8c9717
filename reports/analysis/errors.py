"""The one exception the engine raises for a page it cannot analyse."""


class AnalysisError(Exception):
    """The page could not be fetched or is not an HTML page; `message` says why, for the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
