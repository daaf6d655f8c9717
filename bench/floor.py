"""The floor: a bare WSGI app answering a fixed 302, served by the same server as the service.

Every benchmark figure is also given as a ratio to this app's throughput in the same run,
so results compare across machines.
"""

from collections.abc import Callable, Iterable

HEADERS = [("Location", "https://example.com/"), ("Content-Length", "0")]


def application(environ: dict, start_response: Callable) -> Iterable[bytes]:
    start_response("302 Found", HEADERS)
    return [b""]
