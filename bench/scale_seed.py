"""Seed a fresh database with `size` rows per growing table, in SQL, for bench/scale.py.

Run inside Django (`manage.py shell -c "from bench.scale_seed import seed; seed(1000)"`); prints
what the scenarios need as JSON on its last line. Every big table is filled by one
`INSERT … SELECT` over a series of numbers (generate_series on PostgreSQL, a numbers table
made by a recursive CTE on SQLite), so 10⁶ links and 10⁷ visits take minutes, not hours.

The column lists come from the models (`_meta`): a column the seed does not name gets its
field's default, and a new NOT NULL column without one stops the seed with its name, so a
schema change cannot make it insert something the application would not.

At size N:
- N short links, 9 in 10 owned by the owner (who exports them), with 1 to 19 unique visits
  each (about 10 N visits, over the last 45 days) and `counter` equal to them;
- N reports over N / 20 projects (at least 50), 9 in 10 the owner's, with URLs of several
  shapes and the analysis engine's results JSON; N / 100 more queued with their task rows;
- N pastes, N / 100 (at least 10) of them the owner's.
"""

import hashlib
import json
import random
import time

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.db import connection, models, transaction
from django.utils import timezone

from bench.seed import _results
from common.paging import LARGE_TABLE_PER_PAGE
from pastes.models import ApiKey as PastesApiKey
from pastes.models import Paste, PasteProfile
from pastes.serializers import ACCOUNT_PER_PAGE
from reports.models import ApiKey as ReportsApiKey
from reports.models import Project, Report
from shortener.models import ApiKey as ShortenerApiKey
from shortener.models import ShortLink, Visit
from shortener.services.admin_mode import SESSION_KEY as ADMIN_MODE_KEY

OWNER = "scale-owner"
OTHER = "scale-other"
MAX_VISITS_PER_LINK = 19
VISIT_DAYS = 45
RESULTS_VARIANTS = 50
# Report URLs: every seventh has "abc" in it, what `search=abc` looks for.
URL_SHAPES = (
    "blog/{k}-how-we-moved-our-shop-to-a-new-host",
    "docs/abc-guide/chapter-{k}",
    "products/category/{k}?utm_source=newsletter&utm_medium=email&utm_campaign=autumn",
    "news/2026/11/{k}",
    "",
    "help/faq#question-{k}",
    "search?q=shoes&page={k}",
)


class Dialect:
    """The few SQL expressions that differ between PostgreSQL and SQLite."""

    def __init__(self) -> None:
        self.postgres = connection.vendor == "postgresql"

    def numbers(self, count: int, alias: str = "s") -> str:
        """A FROM item with one row per k in 1..count."""
        if self.postgres:
            return f"generate_series(1, {int(count)}) AS {alias}(k)"
        return f"(SELECT k FROM scale_numbers WHERE k <= {int(count)}) AS {alias}"

    def hex16(self, expr: str) -> str:
        return f"lpad(to_hex({expr}), 16, '0')" if self.postgres else f"printf('%%016x', {expr})"

    def padded(self, expr: str, width: int) -> str:
        return f"lpad(({expr})::text, {width}, '0')" if self.postgres else f"printf('%%0{width}d', {expr})"

    def text(self, expr: str) -> str:
        return f"({expr})::text" if self.postgres else f"CAST({expr} AS TEXT)"

    def minutes_ago(self, expr: str) -> str:
        if self.postgres:
            return f"(now() - ({expr}) * interval '1 minute')"
        return f"strftime('%%Y-%%m-%%d %%H:%%M:%%f', 'now', '-' || ({expr}) || ' minutes')"

    def days_from_now(self, expr: str) -> str:
        if self.postgres:
            return f"(now() + ({expr}) * interval '1 day')"
        return f"strftime('%%Y-%%m-%%d %%H:%%M:%%f', 'now', ({expr}) || ' days')"

    def days_ago_date(self, expr: str) -> str:
        return f"(current_date - ({expr})::int)" if self.postgres else f"date('now', '-' || ({expr}) || ' days')"

    def sha256_hex(self, expr: str) -> str:
        return f"encode(sha256(convert_to({expr}, 'UTF8')), 'hex')" if self.postgres else f"scale_sha256({expr})"

    def uuid(self) -> str:
        return "gen_random_uuid()" if self.postgres else "lower(hex(randomblob(16)))"


def insert_select(
    model: type[models.Model], values: dict[str, str | tuple[str, list]], source: str, params: list | None = None
) -> int:
    """INSERT INTO the model's table every concrete column, SELECTed as `values` says, FROM `source`.

    A value is an SQL expression, or one with its parameters as (expression, [params]); a column
    missing from `values` gets its field's default (auto_now ones: now). `params` are those of
    `source`. Returns the rows inserted.
    """
    now = timezone.now()
    columns, expressions, value_params = [], [], []
    # The seed runs with some migrations rewound (bench/scale.py's BACKFILLING_MIGRATIONS): a column
    # a later migration adds is not there yet, and that migration gives the seeded rows its default.
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {model._meta.db_table} LIMIT 0")
        present = {column[0] for column in cursor.description}
    for field in model._meta.concrete_fields:
        if field.generated or field.column not in present:
            continue
        if field.name in values:
            expression, own_params = (
                values[field.name] if isinstance(values[field.name], tuple) else (values[field.name], [])
            )
            expressions.append(expression)
            value_params += own_params
        elif field.primary_key and isinstance(field, models.AutoField | models.BigAutoField | models.SmallAutoField):
            continue
        elif getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
            expressions.append("%s")
            value_params.append(field.get_db_prep_save(now, connection))
        elif field.has_default() or (field.blank and field.empty_strings_allowed and not field.null):
            expressions.append("%s")
            value_params.append(field.get_db_prep_save(field.get_default(), connection))
        elif field.has_db_default() or field.null:
            continue
        else:
            raise ValueError(f"bench/scale_seed.py: {model.__name__}.{field.name} has no default: give it a value")
        columns.append(connection.ops.quote_name(field.column))
    sql = (
        f"INSERT INTO {connection.ops.quote_name(model._meta.db_table)} ({', '.join(columns)}) "
        f"SELECT {', '.join(expressions)} FROM {source}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*value_params, *(params or [])])
        return cursor.rowcount


def _timed(label: str, started: float, timings: dict) -> float:
    now = time.monotonic()
    timings[label] = round(now - started, 1)
    return now


def _session(user: models.Model, *, admin_mode: bool) -> str:
    """A signed-in session of `user` (in admin mode when asked), as logging in makes it."""
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    if admin_mode:
        session[ADMIN_MODE_KEY] = time.time() + 30 * 86400
    session.set_expiry(30 * 86400)
    session.create()
    return session.session_key


def seed(size: int) -> None:
    rng = random.Random(20261124)
    sql = Dialect()
    timings: dict[str, float] = {}
    started = time.monotonic()
    user_model = get_user_model()
    owner = user_model.objects.create_superuser(username=OWNER, email="", password=None)
    other = user_model.objects.create_user(username=OTHER)
    PasteProfile.objects.create(user=owner, max_paste_chars=2_000_000_000)

    if not sql.postgres:
        raw = connection.connection
        raw.create_function(
            "scale_sha256", 1, lambda text: hashlib.sha256(text.encode()).hexdigest(), deterministic=True
        )
        with connection.cursor() as cursor:
            cursor.execute("CREATE TEMP TABLE scale_numbers (k INTEGER PRIMARY KEY)")
            cursor.execute(
                "WITH RECURSIVE s(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM s WHERE k < %s) "
                "INSERT INTO scale_numbers SELECT k FROM s",
                [max(size, 100)],
            )

    owner_of = f"CASE WHEN s.k %% 10 = 0 THEN {other.pk} ELSE {owner.pk} END"
    with transaction.atomic():
        # Links: ids follow k on a fresh database; `counter` is the number of visits made below.
        url = (
            "'https://www.shop' || "
            + sql.text("s.k %% 997")
            + " || '.example/articles/' || "
            + sql.text("s.k")
            + " || '/a-title-long-enough-to-look-like-a-real-one?utm_source=mastodon&ref=' || "
            + sql.hex16("s.k")
        )
        insert_select(
            ShortLink,
            {
                "code": "'z' || " + sql.text("s.k"),
                "url": url,
                "url_digest": sql.sha256_hex(url),
                "owner": owner_of,
                # k mod M first: k * 7919 overflows PostgreSQL's integer past 271,000 links.
                "counter": f"(((s.k %% {MAX_VISITS_PER_LINK}) * 7919) %% {MAX_VISITS_PER_LINK}) + 1",
                "created_at": sql.minutes_ago(f"{size} - s.k"),
                "expires_at": f"CASE WHEN s.k %% 3 = 0 THEN {sql.days_from_now('30')} END",
                "max_visits": "CASE WHEN s.k %% 5 = 0 THEN 1000000 END",
            },
            sql.numbers(size),
        )
        links = ShortLink._meta.db_table
        # One row per visitor, link and day, as many as each link's counter says.
        visits = insert_select(
            Visit,
            {
                "link": "l.id",
                "visitor": sql.hex16("l.id") + " || " + sql.hex16("j.k"),
                "day": sql.days_ago_date(f"(l.id + j.k * 3) %% {VISIT_DAYS}"),
            },
            f"{links} l JOIN {sql.numbers(MAX_VISITS_PER_LINK, 'j')} ON j.k <= l.counter",
        )
    started = _timed("links and visits", started, timings)

    projects_count = max(50, size // 20)
    # At least two full pages of the task admin's list (common.paging.LARGE_TABLE_PER_PAGE) at every size.
    queued_count = max(2 * LARGE_TABLE_PER_PAGE, size // 100)
    with transaction.atomic():
        insert_select(
            Project,
            {"owner": owner_of, "name": "'site' || " + sql.text("s.k") + " || '.example'"},
            sql.numbers(projects_count),
        )
        first_project = Project.objects.order_by("pk").values_list("pk", flat=True).first()
        with connection.cursor() as cursor:
            # Parsed once here, not once per report: on PostgreSQL the column is jsonb already.
            body_type = "jsonb" if sql.postgres else "TEXT"
            cursor.execute(f"CREATE TEMP TABLE scale_results (n INTEGER PRIMARY KEY, body {body_type})")
            cursor.executemany(
                "INSERT INTO scale_results (n, body) VALUES (%s, %s)",
                [(n, json.dumps(_results(rng))) for n in range(RESULTS_VARIANTS)],
            )
        shapes = " ".join(
            f"WHEN {index} THEN '{shape.replace('{k}', "' || " + sql.text('s.k') + " || '")}'"
            for index, shape in enumerate(URL_SHAPES)
        )
        project_join = f"JOIN {Project._meta.db_table} p ON p.id = {first_project} + (s.k %% {projects_count})"
        score = "(((s.k * 37) %% 81) + 20)"
        insert_select(
            Report,
            {
                "owner": "p.owner_id",
                "project": "p.id",
                "url": f"'https://' || p.name || '/' || CASE s.k %% {len(URL_SHAPES)} {shapes} END",
                "result": f"CASE WHEN {score} >= 80 THEN 'good' WHEN {score} >= 50 THEN 'decent' ELSE 'bad' END",
                "score": score,
                "results": f"(SELECT body FROM scale_results r WHERE r.n = s.k %% {RESULTS_VARIANTS})",
                "status": f"'{Report.Status.DONE}'",
                "generated_at": sql.minutes_ago(f"{size} - s.k"),
            },
            f"{sql.numbers(size)} {project_join}",
        )
        # Analyses waiting for a worker (the bench serves without one): reports and their task rows.
        insert_select(
            Report,
            {
                "owner": "p.owner_id",
                "project": "p.id",
                "url": "'https://' || p.name || '/queued/' || " + sql.text("s.k"),
                "status": f"'{Report.Status.QUEUED}'",
                "analysis_run": "1",
            },
            f"{sql.numbers(queued_count)} {project_join}",
        )
    _queue_analyses(sql)
    started = _timed("projects, reports and queued analyses", started, timings)

    # At least two full pages of the account's list at every size, so that the first page's bytes
    # compare like with like across sizes (at 10^3, 10 pastes made a short page look 'not paged').
    owned_pastes = max(2 * ACCOUNT_PER_PAGE, size // 100)
    content = "def handler(request):\n    return render(request, 'page.html', {'items': items})\n" * 12
    with transaction.atomic():
        insert_select(
            Paste,
            {
                "id": "'p' || " + sql.padded("s.k", 11),
                "owner": f"CASE WHEN s.k <= {owned_pastes} THEN {owner.pk} ELSE {other.pk} END",
                "name": "'Snippet ' || " + sql.text("s.k"),
                "content": ("%s || " + sql.text("s.k"), [content]),
                "created_at": sql.minutes_ago(f"{size} - s.k"),
                "exposure": "CASE WHEN s.k %% 4 = 0 THEN 'unlisted' ELSE 'public' END",
            },
            sql.numbers(size),
        )
    started = _timed("pastes", started, timings)

    # What autovacuum does to a live database soon after such a load (as bench/seed.py).
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE" if sql.postgres else "ANALYZE")
    _timed("vacuum analyze", started, timings)

    own_links = ShortLink.objects.filter(owner=owner).count()
    own_reports = Report.objects.filter(owner=owner).count()
    own_projects = Project.objects.filter(owner=owner).count()
    report = Report.objects.filter(owner=owner, status=Report.Status.DONE).order_by("pk").first()
    print(
        json.dumps(
            {
                "size": size,
                "visits": visits,
                "timings": timings,
                "owner": OWNER,
                "session": _session(owner, admin_mode=False),
                "admin_session": _session(owner, admin_mode=True),
                "links": size,
                "own_links": own_links,
                "own_reports": own_reports,
                "own_projects": own_projects,
                "owned_pastes": owned_pastes,
                "code": f"z{size // 2 + 1}",
                "paste_id": f"p{owned_pastes // 2:011d}",
                "report_id": report.pk,
                "shortener_path": f"/{settings.SHORTENER_PREFIX}/" if settings.SHORTENER_PREFIX else "/",
                "pastes_path": f"/{settings.PASTES_PREFIX}/" if settings.PASTES_PREFIX else "/",
            }
        )
    )


def _queue_analyses(sql: Dialect) -> None:
    """One task row per queued report, as the database task backend writes it when a report is created.

    One is queued through the task itself; the others copy its row with their report's id.
    """
    from django_tasks_db.models import DBTaskResult

    from reports.tasks import analyze_report

    queued = Report.objects.filter(status=Report.Status.QUEUED).order_by("pk")
    first = queued.first()
    template = DBTaskResult.objects.get(pk=analyze_report.enqueue(first.pk, first.analysis_run).id)
    if template.args_kwargs != {"args": [first.pk, first.analysis_run], "kwargs": {}}:
        raise ValueError(f"bench/scale_seed.py: unexpected task arguments {template.args_kwargs!r}")
    if sql.postgres:
        args = "jsonb_build_object('args', jsonb_build_array(r.id, r.analysis_run), 'kwargs', '{}'::jsonb)"
    else:
        args = "json_object('args', json_array(r.id, r.analysis_run), 'kwargs', json_object())"
    values = {"id": sql.uuid(), "args_kwargs": args}
    for field in DBTaskResult._meta.concrete_fields:
        if not field.generated and field.name not in values:
            values[field.name] = f"t.{connection.ops.quote_name(field.column)}"
    insert_select(
        DBTaskResult,
        values,
        f"{DBTaskResult._meta.db_table} t JOIN {Report._meta.db_table} r "
        f"ON r.status = '{Report.Status.QUEUED}' AND r.id <> {first.pk} WHERE t.id = %s",
        [DBTaskResult._meta.pk.get_db_prep_value(template.pk, connection)],
    )


def keys() -> None:
    """Print an API key of the owner for each interface (JSON). Issued once every migration has run:
    the seed runs with some apps migrated back (bench/scale.py, BACKFILLING_MIGRATIONS), where a
    key's later columns (its scope) are not there yet."""
    owner = get_user_model().objects.get(username=OWNER)
    issued = {
        f"{name}_key": model.issue(user=owner, name="scale")[1]
        for name, model in (("reports", ReportsApiKey), ("pastes", PastesApiKey), ("shortener", ShortenerApiKey))
    }
    print(json.dumps(issued))


def sessions() -> None:
    """Print fresh sessions of the owner (JSON): a kept database's sessions were signed with the
    SECRET_KEY of the run that seeded it, and every run has its own (bench/run.py)."""
    owner = get_user_model().objects.get(username=OWNER)
    print(json.dumps({"session": _session(owner, admin_mode=False), "admin_session": _session(owner, admin_mode=True)}))


def row_counts() -> None:
    """Print every non-empty table of the project's apps with its rows (PostgreSQL: the planner's estimate)."""
    from django.apps import apps

    counts = {}
    with connection.cursor() as cursor:
        for model in apps.get_models():
            table = model._meta.db_table
            if connection.vendor == "postgresql":
                cursor.execute("SELECT GREATEST(reltuples, 0)::bigint FROM pg_class WHERE relname = %s", [table])
            else:
                cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")
            row = cursor.fetchone()
            if row and row[0]:
                counts[table] = row[0]
    print(json.dumps(counts))
