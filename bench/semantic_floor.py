"""A semantic floor: a bare WSGI app that does only what an endpoint cannot avoid doing.

The 302 floor (bench/floor.py) says what the server costs; this one says what the endpoint's
own work costs at the least: the same SQL statements with the same parameters, in the same
transactions with the same commits, and the same bytes of JSON out, written by the same JSON
library from the same data. What the endpoint does beyond that (middleware, URL resolution,
authentication, serializers, the ORM) is what `make bench` puts against it as a ratio.

The statements are not written down here: when the app loads it sets Django up on the bench's
database, asks the real endpoint (django.test.Client, every request of SEMANTIC_FLOOR_REQUESTS
`CAPTURE_RUNS` times so that per-process caches are as warm as under load) and records the
last run's statements with an execute wrapper, so the floor follows the code. Each request
then replays one recorded run (round robin) on a DB-API cursor of its thread's own connection,
the driver's cursor Django's ORM uses but without Django, fetches every row and renders the
recorded data again:

- a DRF Response: its own renderer, on the data the view handed to it;
- a JsonResponse: json.dumps with its encoder and options, on the data it was given;
- anything else: the recorded bytes as they are.

Values that differ between two runs of the same request (a new paste's id) are new on every
replay, as the endpoint makes them, so that an INSERT does not meet its own primary key.
"""

import json
import os
import secrets
import string
import threading
from collections.abc import Callable, Iterable
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from http import HTTPStatus
from itertools import count
from typing import Any

REQUESTS_ENV = "SEMANTIC_FLOOR_REQUESTS"  # JSON: [{"method", "path", "headers", "body"}, …]
CAPTURE_RUNS = 3
BEGIN, COMMIT, ROLLBACK = "BEGIN", "COMMIT", "ROLLBACK"


@dataclass
class Statement:
    sql: str
    params: Any
    many: bool = False


@dataclass
class Run:
    """One request's database work and answer, as the endpoint did it."""

    statements: list[Statement]
    status: int
    content_type: str
    body: bytes
    render: Callable[[], bytes]
    # Strings the endpoint made anew for this request (they differ from the run before).
    fresh: set[str] = field(default_factory=set)


class StatementRecorder:
    """Records what one request sent to the database, with BEGIN and COMMIT where transactions were."""

    def __init__(self, connection) -> None:
        self.connection = connection
        self.statements: list[Statement] = []
        self.in_transaction = False

    def __call__(self, execute, sql, params, many, context):
        if sql.lstrip().upper().startswith(BEGIN):  # SQLite's backend begins with a statement of its own
            self.in_transaction = True
        elif self.connection.in_atomic_block and not self.in_transaction:  # psycopg begins implicitly
            self.statements.append(Statement(BEGIN, None))
            self.in_transaction = True
        self.statements.append(Statement(sql, params, many))
        return execute(sql, params, many, context)

    def ended(self, how: str) -> None:
        self.statements.append(Statement(how, None))
        self.in_transaction = False

    @contextmanager
    def recording(self):
        """Also note the commits and rollbacks, which Django asks of the driver rather than in SQL."""
        connection = self.connection
        commit, rollback = connection._commit, connection._rollback

        def _commit():
            self.ended(COMMIT)
            return commit()

        def _rollback():
            self.ended(ROLLBACK)
            return rollback()

        connection._commit, connection._rollback = _commit, _rollback
        try:
            with connection.execute_wrapper(self):
                yield self
        finally:
            del connection._commit, connection._rollback


@contextmanager
def recorded_json_responses(into: list):
    """Remember what every JsonResponse made in the block was built from."""
    from django.http import JsonResponse

    original = JsonResponse.__init__

    def __init__(self, data, encoder=None, safe=True, json_dumps_params=None, **kwargs):
        from django.core.serializers.json import DjangoJSONEncoder

        into.append((self, data, encoder or DjangoJSONEncoder, json_dumps_params or {}))
        original(self, data, encoder or DjangoJSONEncoder, safe, json_dumps_params, **kwargs)

    JsonResponse.__init__ = __init__
    try:
        yield
    finally:
        JsonResponse.__init__ = original


def renderer_of(response, json_responses: list) -> Callable[[], bytes]:
    """How the floor writes the response's body: with what the endpoint wrote it with."""
    renderer = getattr(response, "accepted_renderer", None)
    if renderer is not None and hasattr(response, "data"):
        data, media_type, context = response.data, response.accepted_media_type, response.renderer_context
        return lambda: renderer.render(data, media_type, context)
    for made, data, encoder, params in json_responses:
        if made is response:
            return lambda: json.dumps(data, cls=encoder, **params).encode()
    body = response.content
    return lambda: body


def request_once(client, request: dict):
    method = getattr(client, request.get("method", "GET").lower())
    body = request.get("body")
    extra = {"data": body, "content_type": request["headers"].get("Content-Type", "")} if body else {}
    return method(request["path"], headers=request.get("headers") or {}, **extra)


def capture(request: dict, *, runs: int = CAPTURE_RUNS) -> Run:
    """Ask the endpoint `runs` times in this process and record the last time; the runs before warm it."""
    from django.db import connection
    from django.test import Client

    client = Client(HTTP_HOST="127.0.0.1")
    recorded: list[Run] = []
    for _ in range(runs):
        recorder, json_responses = StatementRecorder(connection), []
        with ExitStack() as stack:
            stack.enter_context(recorder.recording())
            stack.enter_context(recorded_json_responses(json_responses))
            response = request_once(client, request)
        recorded.append(
            Run(
                recorder.statements,
                response.status_code,
                response.get("Content-Type", ""),
                response.content,
                renderer_of(response, json_responses),
            )
        )
    last = recorded[-1]
    if len(recorded) > 1:
        last.fresh = fresh_values(recorded[-2].statements, last.statements)
    if last.render() != last.body:
        raise RuntimeError(f"The floor of {request['path']} does not write the endpoint's bytes.")
    return last


def fresh_values(before: list[Statement], after: list[Statement]) -> set[str]:
    """The string parameters that changed between two runs of the same request."""
    changed = set()
    for earlier, later in zip(before, after, strict=False):
        if earlier.sql != later.sql or not isinstance(later.params, list | tuple):
            continue
        for old, new in zip(earlier.params, later.params, strict=False):
            if isinstance(new, str) and new != old and len(new) >= 8:
                changed.add(new)
    return changed


def like(value: str) -> str:
    """A new random string of the value's length, from the same kind of characters."""
    alphabet = string.ascii_letters + string.digits if value.isalnum() else string.ascii_letters + string.digits + "-_"
    return "".join(secrets.choice(alphabet) for _ in value)


class Replayer:
    """Runs the recorded statements on one DB-API connection per thread, opened by Django's backend."""

    def __init__(self, runs: list[Run]) -> None:
        from django.db import connections

        self.runs = runs
        self.connections = connections
        self.local = threading.local()
        self.turn = count()

    def cursor(self):
        cursor = getattr(self.local, "cursor", None)
        if cursor is None:
            # A wrapper of its own per thread: connected and set up (time zone, SQLite's functions
            # and pragmas) as the service's, in autocommit, as Django leaves it between transactions.
            wrapper = self.connections.create_connection("default")
            wrapper.ensure_connection()
            cursor = self.local.cursor = wrapper.create_cursor()
        return cursor

    def replay(self) -> Run:
        run = self.runs[next(self.turn) % len(self.runs)]
        renamed = {value: like(value) for value in run.fresh}
        cursor = self.cursor()
        for statement in run.statements:
            params = statement.params
            if renamed and isinstance(params, list | tuple):
                params = [renamed.get(p, p) if isinstance(p, str) else p for p in params]
            if statement.many:
                cursor.executemany(statement.sql, params)
            else:
                cursor.execute(statement.sql, params)
            if cursor.description is not None:
                cursor.fetchall()
        return run


def status_line(status: int) -> str:
    return f"{status} {HTTPStatus(status).phrase}"


def app(replayer: Replayer) -> Callable:
    def application(environ: dict, start_response: Callable) -> Iterable[bytes]:
        run = replayer.replay()
        body = run.render()
        start_response(
            status_line(run.status), [("Content-Type", run.content_type), ("Content-Length", str(len(body)))]
        )
        return [body]

    return application


def load() -> Callable:
    """The floor of the requests in SEMANTIC_FLOOR_REQUESTS, as a WSGI app (Django set up on the way)."""
    import django
    from django.db import connections

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    runs = [capture(request) for request in json.loads(os.environ[REQUESTS_ENV])]
    connections.close_all()  # the replay has connections of its own
    return app(Replayer(runs))


application = load() if REQUESTS_ENV in os.environ else None
