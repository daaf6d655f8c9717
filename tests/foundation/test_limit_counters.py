"""The limits' counters (common/counters.py, common.LimitCounter) and the failed sign-ins
(accounts.SignInFailures): rows nobody will use again are pruned on a schedule, not at random,
and the counters' move from the shortener to common kept their table and rows."""

from datetime import timedelta

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import signin_limits
from accounts.models import SignInFailures
from common import counters, pruning
from common.models import LimitCounter


def stored_counters() -> dict[str, int]:
    return dict(LimitCounter.objects.values_list("key", "count"))


@pytest.fixture
def old_and_live_counters(db):
    now = timezone.now()
    LimitCounter.objects.bulk_create(
        [
            LimitCounter(key="gone-two-days", count=3, expires_at=now - timedelta(days=2)),
            LimitCounter(key="gone-an-hour", count=2, expires_at=now - timedelta(hours=1)),
            LimitCounter(key="live", count=1, expires_at=now + timedelta(minutes=5)),
        ]
    )
    return now


@pytest.mark.django_db
def test_counting_between_prunings_is_one_statement_and_keeps_every_row(old_and_live_counters):
    with CaptureQueriesContext(connection) as queries:
        for _ in range(200):  # where one in a hundred used to prune, by chance
            counters.hit("counted", seconds=60)

    assert len(queries) == 200
    assert set(stored_counters()) == {"gone-two-days", "gone-an-hour", "live", "counted"}


@pytest.mark.django_db
def test_the_first_count_of_a_period_deletes_the_rows_expired_a_day_ago_and_only_then(old_and_live_counters):
    counters.PRUNING.make_due()

    with CaptureQueriesContext(connection) as first:
        counters.hit("counted", seconds=60)
    with CaptureQueriesContext(connection) as second:
        counters.hit("counted", seconds=60)

    assert [len(first), len(second)] == [2, 1]
    assert stored_counters() == {"gone-an-hour": 2, "live": 1, "counted": 2}


@pytest.mark.django_db
def test_the_first_failed_sign_in_of_a_period_deletes_the_forgotten_counts(settings):
    now = timezone.now()
    SignInFailures.objects.bulk_create(
        [
            SignInFailures(kind="address", key="192.0.2.1", failures=4, forget_at=now - timedelta(seconds=1)),
            SignInFailures(kind="address", key="192.0.2.2", failures=2, forget_at=now + timedelta(minutes=5)),
        ]
    )

    signin_limits.count_failure("address", "192.0.2.3", now)
    kept_until_due = set(SignInFailures.objects.values_list("key", flat=True))
    signin_limits.PRUNING.make_due()
    signin_limits.count_failure("address", "192.0.2.3", now)

    assert kept_until_due == {"192.0.2.1", "192.0.2.2", "192.0.2.3"}
    assert dict(SignInFailures.objects.values_list("key", "failures")) == {"192.0.2.2": 2, "192.0.2.3": 2}


def test_a_schedule_is_due_once_a_period_starting_a_period_after_it_was_made(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(pruning.time, "monotonic", lambda: clock[0])
    schedule = pruning.Schedule(timedelta(hours=6))
    answers = []
    for hours in (0, 5.9, 6, 6, 11.9, 12.1):
        clock[0] = 1000.0 + hours * 3600
        answers.append(schedule.due())

    assert answers == [False, False, True, False, False, True]


@pytest.mark.django_db(transaction=True)
def test_the_counters_moved_to_common_with_their_table_and_rows():
    expires = timezone.now() + timedelta(hours=1)
    LimitCounter.objects.create(key="kept", count=7, expires_at=expires)
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    before_move = [("shortener", "0014_apikey_scope_and_expiry"), ("common", None)]

    try:
        executor.migrate(before_move)
        old_state = MigrationExecutor(connection).loader.project_state(before_move[0])
        with connection.cursor() as cursor:
            cursor.execute('SELECT "key", "count" FROM shortener_limitcounter')
            rows_before = cursor.fetchall()
        old_type = ContentType.objects.filter(model="limitcounter").values_list("app_label", flat=True)
        old_labels = list(old_type)
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(leaves)

    assert ("shortener", "limitcounter") in old_state.models
    assert ("common", "limitcounter") not in old_state.models
    assert rows_before == [("kept", 7)]
    assert old_labels in ([], ["shortener"])
    assert LimitCounter._meta.db_table == "shortener_limitcounter"
    assert list(LimitCounter.objects.values_list("key", "count")) == [("kept", 7)]
    assert list(ContentType.objects.filter(model="limitcounter").values_list("app_label", flat=True)) == ["common"]
