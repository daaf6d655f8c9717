"""Why an endpoint missed its target: its slowest SQL query and that query's plan, for bench/scale.py --explain.

Run inside Django (`manage.py shell -c "from bench.scale_explain import explain; explain(<json>)"`)
with the environment the server had (its SECRET_KEY signs the seeded sessions). Each endpoint is
requested once in process with Django's test client while its queries are recorded; the slowest
is then run again under EXPLAIN ANALYZE (EXPLAIN QUERY PLAN on SQLite). Prints one JSON object:
endpoint name → {"query_ms", "queries", "sql", "plan"}.
"""

import json
import time

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

PLAN_LINES = 12


def _plan(sql: str) -> list[str]:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"EXPLAIN (ANALYZE, TIMING OFF) {sql}")
            return [row[0] for row in cursor.fetchall()][:PLAN_LINES]
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
        return [" ".join(str(part) for part in row[1:]) for row in cursor.fetchall()][:PLAN_LINES]


def explain(request: str) -> None:
    """`request`: JSON {"endpoints": [{name, path, method, headers, cookies, body}], "host": "127.0.0.1"}."""
    spec = json.loads(request)
    found = {}
    for endpoint in spec["endpoints"]:
        client = Client(SERVER_NAME=spec["host"], HTTP_HOST=spec["host"])
        for name, value in endpoint["cookies"].items():
            client.cookies[name] = value
        headers = {name: value for name, value in endpoint["headers"].items() if name != "Content-Type"}
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = client.generic(
                endpoint["method"],
                endpoint["path"],
                data=endpoint["body"] or "",
                content_type=endpoint["headers"].get("Content-Type", ""),
                headers=headers,
            )
            # A streamed answer runs its queries while it is read.
            body = b"".join(response.streaming_content) if response.streaming else response.content
            elapsed = (time.perf_counter() - started) * 1000
        timed = [(float(query["time"]) * 1000, query["sql"]) for query in queries.captured_queries]
        if not timed:
            found[endpoint["name"]] = {"request_ms": round(elapsed, 1), "queries": 0, "bytes": len(body)}
            continue
        slowest_ms, sql = max(timed)
        try:
            plan = _plan(sql) if sql.lstrip().upper().startswith("SELECT") else []
        except Exception as error:  # a plan we cannot get is reported, not fatal
            plan = [f"(no plan: {type(error).__name__}: {error})"]
        found[endpoint["name"]] = {
            "request_ms": round(elapsed, 1),
            "queries": len(timed),
            "query_ms": round(slowest_ms, 1),
            "queries_ms": round(sum(ms for ms, _ in timed), 1),
            "sql": sql[:600],
            "plan": plan,
        }
    print(json.dumps(found))
