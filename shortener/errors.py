class Failure(Exception):
    """An operation failed in a way the client should be told about, with its HTTP status."""

    def __init__(self, msg: str, status: int = 400, *, retry_after: int | None = None) -> None:
        super().__init__(msg)
        self.msg = msg
        self.status = status
        self.retry_after = retry_after
