"""The redirect's own Python: microseconds per redirect answered by `config.asgi`, without a server.

Under `make bench` a redirect shares two cores with the server, wrk and the visit writer, so its
throughput moves with all of them. This measures only the part that is ours: `config.asgi`'s
application (the ASGI front and the redirect shortcut) called on one thread with the scopes
granian would pass for wrk's requests (a cached link, a new visitor each time: `make bench`'s
visits.lua), visits buffered but never flushed. It prints the best and the median of five rounds,
and with --profile the functions that took the most time.

    .venv/bin/python bench/redirect_python.py [--requests 20000] [--profile]
"""

import argparse
import asyncio
import cProfile
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.harness import SECRET_KEY, setup_django

LINKS = 1000
VISITORS = 100_000
ROUNDS = 5


def scope(number: int) -> dict:
    path = f"/s/bench{number % LINKS:05d}"
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 40000 + number % 1000),
        "scheme": "http",
        "method": "GET",
        "root_path": "",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1:8000"), (b"user-agent", f"bench-visitor-{number % VISITORS}".encode())],
    }


async def receive() -> dict:
    return {"type": "http.request", "body": b"", "more_body": False}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    # The database is a throw-away SQLite file, removed with its directory when the run ends.
    with tempfile.TemporaryDirectory(prefix="redirect_python_") as directory:
        measure(args, directory)


def measure(args: argparse.Namespace, directory: str) -> None:
    setup_django(
        DJANGO_SETTINGS_MODULE="config.settings",
        SECRET_KEY=SECRET_KEY,
        DATABASE_URL=f"sqlite:///{directory}/db.sqlite3",
        REDIS_URL="",
        SHORTENER_VISIT_WRITER_PROCESS="0",
    )
    from django.core.management import call_command

    from shortener.fastpath import links, visits
    from shortener.models import ShortLink

    call_command("migrate", verbosity=0)
    ShortLink.objects.bulk_create(
        ShortLink(code=f"bench{number:05d}", url=f"https://example.com/page/{number}") for number in range(LINKS)
    )
    links.local_links.background = visits.buffer.background = False  # nothing flushed or watched
    links.local_links.preload(LINKS)
    from config.asgi import application

    answers = set()

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            # Django's middleware adds X-Frame-Options; the shortcut, which this measures, does not.
            answers.add((message["status"], any(name == b"x-frame-options" for name, _ in message["headers"])))

    async def answer(scopes: list[dict]) -> None:
        for each in scopes:
            await application(each, receive, send)

    scopes = [scope(number) for number in range(args.requests)]
    timings = []
    for _ in range(ROUNDS):
        visits.seen.clear()
        started = time.perf_counter()
        asyncio.run(answer(scopes))
        timings.append((time.perf_counter() - started) / args.requests * 1e6)
        visits.buffer.discard()
    if answers != {(302, False)}:
        raise SystemExit(f"expected only the shortcut's 302s, got (status, through Django): {sorted(answers)}")
    print(f"{'requests per round':<28}{args.requests:>10}")
    print(f"{'us per redirect, best':<28}{min(timings):>10.1f}")
    print(f"{'us per redirect, median':<28}{statistics.median(timings):>10.1f}")
    if args.profile:
        visits.seen.clear()
        profile = cProfile.Profile()
        profile.runcall(asyncio.run, answer(scopes))
        pstats.Stats(profile).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
