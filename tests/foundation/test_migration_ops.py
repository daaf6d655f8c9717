"""The migrations rewritten to take no long lock (common/migration_ops.py) reach the schema the plain operations made.

shortener 0005 and 0009, reports 0003 and 0005 add their CHECKs NOT VALID and validate them in
a statement of their own, and build their partial unique indexes CONCURRENTLY (docs/deployment.md,
"Upgrading"). The test database was migrated from zero through them: every constraint must be
validated, every index valid, and the definitions those of the plain operations, under the same
names (pg_dump --schema-only of a database migrated by the earlier, atomic migrations and of one
migrated by these was identical when they were rewritten, and again when shortener 0006, 0010 and
0012 were made to count behind a watermark).
"""

import importlib

import pytest
from django.db import connection

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def constraint(name: str) -> tuple[str, bool]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_get_constraintdef(oid), convalidated FROM pg_constraint WHERE conname = %s", [name])
        rows = cursor.fetchall()
    assert len(rows) == 1, f"{name}: {rows}"
    return rows[0]


def index_definition(name: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_get_indexdef(i.indexrelid), i.indisvalid, i.indisunique FROM pg_index i "
            "JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = %s",
            [name],
        )
        (definition, valid, unique), *others = cursor.fetchall()
    assert valid and unique and not others, name
    return definition


def test_no_constraint_is_left_unvalidated_and_no_index_invalid():
    with connection.cursor() as cursor:
        cursor.execute("SELECT conname FROM pg_constraint WHERE NOT convalidated")
        assert cursor.fetchall() == []
        cursor.execute("SELECT indexrelid::regclass::text FROM pg_index WHERE NOT indisvalid")
        assert cursor.fetchall() == []
        # No index of a swap left behind under its temporary name.
        cursor.execute("SELECT relname FROM pg_class WHERE relkind = 'i' AND relname LIKE '%%\\_swap'")
        assert cursor.fetchall() == []


@pytest.mark.parametrize(
    ("name", "definition"),
    [
        # The column CHECKs that ADD COLUMN would have written inline, under PostgreSQL's own names.
        ("shortener_shortlink_max_visits_check", "CHECK ((max_visits >= 0))"),
        ("reports_report_analysis_run_check", "CHECK ((analysis_run >= 0))"),
        ("reports_report_score_seo_check", "CHECK ((score_seo >= 0))"),
        ("reports_report_score_miscellaneous_check", "CHECK ((score_miscellaneous >= 0))"),
        # Issue 46 and 47's counters and fields on the large tables.
        ("shortener_shortlink_imported_visits_check", "CHECK ((imported_visits >= 0))"),
        ("shortener_shortlink_redirect_status_check", "CHECK ((redirect_status >= 0))"),
        ("pastes_paste_file_count_check", "CHECK ((file_count >= 0))"),
        ("pastes_paste_attachment_count_check", "CHECK ((attachment_count >= 0))"),
        # The named CHECKs of the models.
        ("shortener_shortlink_max_visits_min", "CHECK (((max_visits IS NULL) OR (max_visits >= 1)))"),
        (
            "shortener_shortlink_redirect_status_valid",
            "CHECK (((redirect_status IS NULL) OR (redirect_status = ANY (ARRAY[301, 302, 307, 308]))))",
        ),
        ("reports_report_score_range", "CHECK (((score IS NULL) OR (score <= 100)))"),
        (
            "reports_report_status_valid",
            "CHECK (((status)::text = ANY ((ARRAY['queued'::character varying, 'running'::character varying, "
            "'done'::character varying, 'failed'::character varying])::text[])))",
        ),
    ],
)
def test_the_checks_added_without_a_long_lock_are_validated_and_as_the_plain_operation_made_them(name, definition):
    assert constraint(name) == (definition, True)


def test_the_partial_unique_index_swapped_concurrently_has_the_models_condition():
    # shortener 0009 swapped it concurrently; 0018 (several domains) rebuilt it, concurrently too, with the domain.
    definition = index_definition("shortener_shortlink_owner_domain_url_uniq")
    assert definition.startswith(
        "CREATE UNIQUE INDEX shortener_shortlink_owner_domain_url_uniq ON public.shortener_shortlink"
    )
    assert "(owner_id, domain, url_digest)" in definition, definition
    for condition in ("deleted_at IS NULL", "expires_at IS NULL", "NOT is_custom", "max_visits IS NULL"):
        assert condition in definition, definition
    assert "password_hash)::text = ''::text" in definition, definition


# shortener 0006, 0010 and 0012 start their triggers behind a watermark and count the links
# already there in batches (common.migration_ops.count_behind_a_watermark): once migrated, each
# function is the one the migration's last step installs, with no watermark left in it.
SHORTENER = "shortener.migrations."


def function_source(name: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT prosrc FROM pg_proc WHERE proname = %s", [name])
        (source,), *others = cursor.fetchall()
    assert not others, name
    return source


def body_of(create_function: str) -> str:
    return create_function.split("$$", 2)[1]


def test_the_live_link_count_trigger_counts_every_link_with_no_watermark_left():
    migration = importlib.import_module(SHORTENER + "0006_daily_visits_live_link_count")
    assert function_source("shortener_count_live_links") == body_of(migration.LIVE_COUNT_FUNCTION)
    assert "id >" not in function_source("shortener_count_live_links")


@pytest.mark.parametrize("op", ["insert", "delete", "update"])
def test_the_tally_triggers_are_the_month_buckets_ones_with_no_watermark_left(op):
    month = importlib.import_module(SHORTENER + "0012_month_rank_buckets_and_day_tallies")
    changes = month.PREVIOUS.SOURCES[op][2]
    source = function_source(f"shortener_link_tallies_{op}")
    assert source == body_of(month.TRIGGER_BODY.format(op=op, changes=changes))
    assert "id <=" not in source and "date_trunc('month'" in source and "'created:'" in source
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tgname FROM pg_trigger WHERE tgrelid = 'shortener_shortlink'::regclass AND NOT tgisinternal"
        )
        assert {name for (name,) in cursor.fetchall()} >= {"shortener_count_live_links", f"shortener_link_tallies_{op}"}
