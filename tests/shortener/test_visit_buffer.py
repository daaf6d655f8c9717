"""Buffered visits: counted at the flush, once each, and not lost when a flush fails."""

import datetime
import time

import pytest
from django.db import DatabaseError

from shortener.fastpath import flush_visits, visits
from shortener.fastpath.visits import VisitBuffer
from shortener.models import ShortLink, Visit
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"
TODAY = datetime.date(2026, 5, 1)


def counter(code: str = "abc") -> int:
    return ShortLink.objects.get(code=code).counter


def test_buffered_visit_is_counted_at_the_flush(client):
    ShortLinkFactory(code="abc")
    client.get("/s/abc", HTTP_USER_AGENT=FIREFOX)
    assert counter() == 0

    assert flush_visits() == 1

    assert counter() == 1
    assert Visit.objects.count() == 1


def test_visit_is_counted_during_the_request_when_flushing_is_off(client, settings):
    settings.SHORTENER_VISIT_FLUSH_SECONDS = 0
    ShortLinkFactory(code="abc")

    client.get("/s/abc", HTTP_USER_AGENT=FIREFOX)

    assert counter() == 1
    assert flush_visits() == 0


def test_visitor_buffered_by_two_processes_counts_once():
    link = ShortLinkFactory(code="abc")
    first, second = VisitBuffer(), VisitBuffer()
    for buffer in (first, second):
        buffer.start_flusher = lambda: None
        buffer.add((link.pk, "a" * 32, TODAY))

    assert first.flush() == 1
    assert second.flush() == 0

    assert counter() == 1


def test_one_flush_adds_each_links_new_visits():
    hot, cold = ShortLinkFactory(code="hot"), ShortLinkFactory(code="cold")
    for visitor in "abc":
        visits.buffer.add((hot.pk, visitor * 32, TODAY))
    visits.buffer.add((cold.pk, "a" * 32, TODAY))

    assert flush_visits() == 4

    assert (counter("hot"), counter("cold")) == (3, 1)


@pytest.mark.parametrize(
    "visitors",
    [
        ["a" * 32, "0" * 32],  # what visitor_hash gives: one array literal
        ["null", "NULL-ish", "b" * 32],  # unquoted, the first would be a null
        ["x,y", 'say "hi"', "{braced}", "back\\slash", "two words", ""],  # need quoting
    ],
)
def test_a_batch_keeps_every_visitor_exactly_as_given(visitors):
    # The PostgreSQL writer sends a column of plain values as one array literal, others quoted.
    link = ShortLinkFactory(code="abc")
    for visitor in visitors:
        visits.buffer.add((link.pk, visitor, TODAY))

    assert flush_visits() == len(visitors)

    assert sorted(Visit.objects.values_list("visitor", flat=True)) == sorted(visitors)
    assert counter() == len(visitors)


def test_failed_flush_keeps_its_visits_for_the_next_one(monkeypatch):
    link = ShortLinkFactory(code="abc")
    visits.buffer.add((link.pk, "a" * 32, TODAY))

    def broken(*args, **kwargs):
        raise DatabaseError("connection lost")

    with monkeypatch.context() as patch:
        patch.setattr(visits, "_write", broken)
        with pytest.raises(DatabaseError):
            flush_visits()

    assert flush_visits() == 1
    assert counter() == 1


@pytest.mark.django_db(transaction=True)
def test_flush_counts_the_other_visits_when_a_link_was_removed_meanwhile():
    kept, removed = ShortLinkFactory(code="kept"), ShortLinkFactory(code="removed")
    visits.buffer.add((kept.pk, "a" * 32, TODAY))
    visits.buffer.add((removed.pk, "a" * 32, TODAY))
    removed.delete()

    assert flush_visits() == 1

    assert counter("kept") == 1
    assert Visit.objects.get().link_id == kept.pk


@pytest.mark.django_db(transaction=True)
def test_background_flusher_writes_visits_without_being_asked(settings):
    settings.SHORTENER_VISIT_FLUSH_SECONDS = 0.05
    link = ShortLinkFactory(code="abc")
    buffer = VisitBuffer()
    buffer.add((link.pk, "a" * 32, TODAY))
    try:
        deadline = time.monotonic() + 5
        while counter() == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        buffer.stop()

    assert counter() == 1


def test_stopping_writes_what_is_left():
    link = ShortLinkFactory(code="abc")
    buffer = VisitBuffer()
    buffer.start_flusher = lambda: None
    buffer.add((link.pk, "a" * 32, TODAY))

    buffer.stop()

    assert counter() == 1
