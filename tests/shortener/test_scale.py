"""Issue 19: lists, counts, charts and the export at a size a long-lived instance reaches.

The means (keyset seeks, maintained counts, per-day tables, streaming) must give exactly what
the plain queries gave: a page is what OFFSET returns (ties included), the export the whole
data in the old bytes, a chart the raw visits' counts.
"""

import csv
import datetime
import io
import json
import random

import pytest
from django.db import connection
from django.db.models import Count
from django.db.models.functions import TruncDate
from django.http import JsonResponse
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework import status

from common.estimated_count import EstimatedCountPaginator
from common.paging import KeptCountPaginator
from shortener import messages
from shortener.admin import NewestLinksPaginator, ShortLinkAdmin
from shortener.charts import CHART_DAYS, link_chart, site_chart
from shortener.fastpath.visits import VisitBuffer, write_visits
from shortener.models import DailyVisits, LinkTag, LinkTally, ShortLink, SiteDailyVisits, Visit
from shortener.services import transfer
from shortener.services.links import links_by_popularity, links_page, live_links_total
from shortener.services.tallies import CREATED, NEWEST, created_key_at
from shortener.services.visits import visits_prune
from tests.shortener.asserts import assert_shortener_error
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

JSON = {"_format": "json"}
ON_POSTGRESQL = pytest.mark.skipif("connection.vendor != 'postgresql'", reason="PostgreSQL only")


def tied_links(owner, count: int, *, seed: int = 19) -> list[ShortLink]:
    """Links whose counters and creation times tie often, some deleted: the order's tiebreaks matter."""
    rng = random.Random(seed)
    base = timezone.now() - datetime.timedelta(days=3)
    links = [
        ShortLinkFactory(
            owner=owner,
            counter=rng.choice([0, 0, 0, 1, 2, 5]),
            created_at=base + datetime.timedelta(minutes=rng.choice([0, 1, 2])),
        )
        for _ in range(count)
    ]
    for link in rng.sample(links, count // 7):
        ShortLink.objects.filter(pk=link.pk).update(deleted_at=timezone.now())
    return links


def offset_page(queryset, page: int, size: int) -> list[str]:
    """What the plain OFFSET query returns for the page."""
    offset = (page - 1) * size
    return list(links_by_popularity(queryset).values_list("code", flat=True)[offset : offset + size])


def codes_of(response) -> list[str]:
    return [item["short"].rsplit("/", 1)[1] for item in response.json()]


# --- pages -----------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 3, 10])
def test_every_page_is_what_offset_returns_with_ties_from_either_end(user, other_user, size):
    tied_links(user, 40)
    tied_links(other_user, 9, seed=7)
    links = ShortLink.objects.all()
    total = links.filter(deleted_at__isnull=True).count()

    pages = [links_page(links, total=total, page=page, size=size) for page in range(1, total // size + 3)]

    for number, rows in enumerate(pages, start=1):
        assert [link.code for link in rows] == offset_page(links, number, size), f"page {number}"
    assert sum(len(rows) for rows in pages) == total


def test_admin_json_pages_deep_and_last_equal_offset_and_total_is_exact(admin_mode_client, user, other_user):
    tied_links(user, 30)
    tied_links(other_user, 25, seed=3)
    live = ShortLink.objects.filter(deleted_at__isnull=True).count()
    last = -(-live // 10)

    for page in [1, 2, last - 1, last, last + 1]:
        response = admin_mode_client.get("/s/stats", {**JSON, "page": page})

        assert response.status_code == status.HTTP_200_OK
        assert response["X-Total-Count"] == str(live)
        assert codes_of(response) == offset_page(ShortLink.objects.all(), page, 10), f"page {page}"


def test_admin_html_last_page_shows_its_links_and_no_next_link(admin_mode_client, user):
    tied_links(user, 23)
    live = ShortLink.objects.filter(deleted_at__isnull=True).count()
    last = -(-live // 10)

    html = admin_mode_client.get("/s/stats", {"page": last}).content.decode()

    assert f"page {last} of {last} ({live} links)" in html
    for code in offset_page(ShortLink.objects.all(), last, 10):
        assert f'href="/s/delete/{code}"' in html
    assert 'rel="next"' not in html
    assert f'href="?page={last - 1}"' in html


def test_own_statistics_are_paged_past_100_links_for_their_owner_only(alice_client, bob_client, user, other_user):
    ShortLinkFactory.create_batch(103, owner=user)
    ShortLinkFactory(owner=other_user, code="bobs")

    first = alice_client.get("/s/stats", JSON)
    second = alice_client.get("/s/stats", {**JSON, "page": 2})
    bobs = bob_client.get("/s/stats", JSON)

    assert first["X-Total-Count"] == second["X-Total-Count"] == "103"
    assert len(first.json()) == 100
    assert codes_of(second) == offset_page(ShortLink.objects.filter(owner=user), 2, 100)
    assert set(codes_of(first)).isdisjoint(codes_of(second))
    assert bobs["X-Total-Count"] == "1"
    assert codes_of(bobs) == ["bobs"]
    html = alice_client.get("/s/stats", {"page": 2}).content.decode()
    assert "page 2 of 2 (103 links)" in html
    assert 'href="?page=1"' in html


def test_own_statistics_of_a_few_links_have_no_pager(alice_client, user):
    ShortLinkFactory.create_batch(3, owner=user)

    html = alice_client.get("/s/stats").content.decode()

    assert "3 links, most visited first" in html
    assert 'aria-label="Pages"' not in html


def test_statistics_pages_need_login(client, user):
    ShortLinkFactory(owner=user)

    assert_shortener_error(client.get("/s/stats", {**JSON, "page": 2}), 401, messages.LOGIN_REQUIRED)
    assert client.get("/s/stats", {"page": 2})["Location"].startswith("/s/login")


def test_a_bad_page_is_refused_for_own_statistics_too(alice_client):
    assert_shortener_error(alice_client.get("/s/stats", {**JSON, "page": "0"}), 400, messages.PAGE_INVALID)


@ON_POSTGRESQL
def test_the_live_link_count_follows_every_way_of_writing_links(user, other_user):
    links = ShortLinkFactory.create_batch(5, owner=user)
    ShortLink.objects.bulk_create(
        ShortLink(code=f"bulk{n}", url="https://bulk.example/", url_digest=f"{n}", is_custom=True) for n in range(3)
    )
    ShortLink.objects.filter(pk=links[0].pk).update(deleted_at=timezone.now())  # soft delete
    ShortLink.objects.filter(pk__in=[links[1].pk, links[2].pk]).update(deleted_at=timezone.now())
    ShortLink.objects.filter(pk=links[1].pk).update(deleted_at=None)  # undeleted
    links[3].delete()  # removed
    ShortLink.objects.filter(pk=links[0].pk).delete()  # removed while deleted: no change
    other_user.delete()  # owners go, links stay

    assert live_links_total() == ShortLink.objects.filter(deleted_at__isnull=True).count() == 5


# --- export ----------------------------------------------------------------


def old_export_rows(owner) -> list[dict]:
    """What GET /export answered before it was streamed (the list built whole)."""
    links = ShortLink.objects.filter(owner=owner, deleted_at__isnull=True).order_by("created_at", "pk")
    return [
        {
            "url": link.url,
            "custom": link.code if link.is_custom else "",
            "short": f"http://testserver/s/{link.code}",
            "counter": link.counter,
            "created_at": int(link.created_at.timestamp()),
            "expires_at": int(link.expires_at.timestamp()) if link.expires_at else None,
            "max_visits": link.max_visits,
            "tags": sorted(tag.name for tag in link.tags.all()),
            "password_hash": link.password_hash,
            "disabled": link.is_disabled,
            "domain": link.domain,
        }
        for link in links
    ]


@pytest.fixture
def many_links(user, other_user, monkeypatch):
    """Seven chunks' worth of links (the chunk made small), ties in created_at, some with a lifetime."""
    monkeypatch.setattr(transfer, "EXPORT_CHUNK", 3)
    tied_links(user, 20)
    limited = ShortLinkFactory(owner=user, code="limited", is_custom=True, max_visits=3, expires_at=timezone.now())
    # Tags come from one query per chunk: some on a link of a later chunk.
    LinkTag.objects.bulk_create([LinkTag(link=limited, name="zeta"), LinkTag(link=limited, name="alpha")])
    ShortLinkFactory(owner=user, url='https://quote.example/?a="b",c\u00e9', password_hash="md5$x$y")
    ShortLinkFactory(owner=other_user, code="bobs")


def test_streamed_json_export_is_the_old_answer_byte_for_byte(alice_client, user, many_links):
    response = alice_client.get("/s/export")

    assert response.status_code == status.HTTP_200_OK
    assert response.streaming
    assert response["Content-Type"] == "application/json"
    body = response.getvalue()
    assert body == JsonResponse(old_export_rows(user), safe=False).content
    assert len(json.loads(body)) == ShortLink.objects.filter(owner=user, deleted_at__isnull=True).count()


def test_streamed_csv_export_is_the_old_answer_byte_for_byte(alice_client, user, many_links):
    response = alice_client.get("/s/export.csv")

    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=transfer.EXPORT_FIELDS, lineterminator="\n")
    writer.writeheader()
    # The moderation and issue 46's option columns, at their defaults for these links.
    defaults = {"rules": "", "forward_query": 0, "forward_path": 0, "redirect_status": ""}
    writer.writerows(
        {**defaults, **row, "tags": " ".join(row["tags"]), "disabled": int(row["disabled"])}
        for row in old_export_rows(user)
    )
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response.getvalue() == out.getvalue().encode()


def test_an_empty_export_is_an_empty_list_and_a_header(bob_client, other_user):
    assert bob_client.get("/s/export").getvalue() == b"[]"
    header = (
        b"url,custom,short,counter,created_at,expires_at,max_visits,tags,password_hash,disabled,"
        b"rules,forward_query,forward_path,redirect_status,preview_title,preview_description,preview_image,domain\n"
    )
    assert bob_client.get("/s/export.csv").getvalue() == header


def test_the_export_holds_only_the_requesters_links(bob_client, other_user, many_links):
    exported = json.loads(bob_client.get("/s/export").getvalue())

    assert [row["short"] for row in exported] == ["http://testserver/s/bobs"]


def test_the_export_needs_login(client, many_links):
    assert_shortener_error(client.get("/s/export", JSON), 401, messages.LOGIN_REQUIRED)
    assert client.get("/s/export")["Location"].startswith("/s/login")


# --- per-day counts --------------------------------------------------------


def raw_per_day(link_id: int | None = None) -> dict[datetime.date, int]:
    visits = Visit.objects.all() if link_id is None else Visit.objects.filter(link_id=link_id)
    return dict(visits.values("day").annotate(n=Count("id")).values_list("day", "n").order_by())


def daily_table(link_id: int) -> dict[datetime.date, int]:
    return dict(DailyVisits.objects.filter(link_id=link_id).values_list("day", "visits"))


def test_daily_counts_equal_the_raw_visits_after_batches_repeats_and_retries(user):
    links = ShortLinkFactory.create_batch(4, owner=user)
    today = timezone.now().date()
    rng = random.Random(5)
    batches = [
        [
            (rng.choice(links).pk, f"v{rng.randrange(30):031d}", today - datetime.timedelta(days=rng.randrange(4)))
            for _ in range(60)
        ]
        for _ in range(5)
    ]
    for batch in batches:
        write_visits(batch, wait_for_wal=True)
    write_visits(batches[2], wait_for_wal=True)  # a batch written again (a retry after a lost answer)

    for link in links:
        assert daily_table(link.pk) == raw_per_day(link.pk)
        link.refresh_from_db()
        assert link.counter == sum(raw_per_day(link.pk).values())
    assert dict(SiteDailyVisits.objects.values_list("day", "visits")) == raw_per_day()


def test_a_failed_flush_is_retried_and_counted_once_everywhere(user, monkeypatch):
    from django.db import DatabaseError

    from shortener.fastpath import visits as visits_module

    link = ShortLinkFactory(owner=user)
    today = timezone.now().date()
    buffer = VisitBuffer()
    buffer.background = False
    for n in range(3):
        buffer.add((link.pk, f"r{n:031d}", today))
    real_write = visits_module._write

    def failing(*args, **kwargs):
        raise DatabaseError("database went away")

    monkeypatch.setattr(visits_module, "_write", failing)
    with pytest.raises(DatabaseError):
        buffer.flush()
    monkeypatch.setattr(visits_module, "_write", real_write)
    buffer.add((link.pk, "r" + "0" * 31, today))  # seen again meanwhile

    assert buffer.flush() == 3
    link.refresh_from_db()
    assert link.counter == 3
    assert daily_table(link.pk) == raw_per_day(link.pk) == {today: 3}
    assert link_chart(link.pk).total == site_chart().total == 3


def test_charts_keep_their_numbers_after_pruning(user):
    link = ShortLinkFactory(owner=user)
    today = timezone.now().date()
    visits = [
        (link.pk, f"p{n:031d}", today - datetime.timedelta(days=day)) for day in range(CHART_DAYS + 3) for n in range(2)
    ]
    write_visits(visits, wait_for_wal=True)
    before = [bar.visits for bar in link_chart(link.pk).bars]

    visits_prune(batch=7)

    assert [bar.visits for bar in link_chart(link.pk).bars] == before == [2] * CHART_DAYS
    assert [bar.visits for bar in site_chart().bars] == before
    assert set(Visit.objects.values_list("day", flat=True)) == {today, today - datetime.timedelta(days=1)}
    assert DailyVisits.objects.filter(day__lt=today - datetime.timedelta(days=CHART_DAYS - 1)).count() == 0


def test_link_statistics_chart_is_public_and_reads_no_visit_rows(client, bob_client, user):
    link = ShortLinkFactory(owner=user, code="public1")
    write_visits([(link.pk, "x" * 32, timezone.now().date())], wait_for_wal=True)

    with CaptureQueriesContext(connection) as queries:
        page = client.get("/s/stats/public1", HTTP_ACCEPT="text/html")
    assert page.status_code == status.HTTP_200_OK
    assert bob_client.get("/s/stats/public1", HTTP_ACCEPT="text/html").status_code == status.HTTP_200_OK
    assert '<strong data-testid="chart-total">1</strong>' in page.content.decode()
    assert not any(Visit._meta.db_table in query["sql"] for query in queries.captured_queries)


def test_admin_chart_reads_no_visit_rows(admin_mode_client, user):
    write_visits([(ShortLinkFactory(owner=user).pk, "y" * 32, timezone.now().date())], wait_for_wal=True)

    with CaptureQueriesContext(connection) as queries:
        html = admin_mode_client.get("/s/stats").content.decode()

    assert '<strong data-testid="chart-total">1</strong>' in html
    assert not any(Visit._meta.db_table in query["sql"] for query in queries.captured_queries)


# --- the Django admin ------------------------------------------------------


def test_filtered_admin_changelist_opens_with_a_bounded_count(admin_client, user, monkeypatch):
    monkeypatch.setattr(EstimatedCountPaginator, "EXACT_UP_TO", 3)
    ShortLinkFactory.create_batch(6, owner=user)

    with CaptureQueriesContext(connection) as queries:
        response = admin_client.get("/admin/shortener/shortlink/", {"is_custom__exact": "0"})

    assert response.status_code == status.HTTP_200_OK
    changelist = response.context["cl"]
    assert changelist.full_result_count is None  # show_full_result_count = False: no second count
    assert [link.pk for link in changelist.result_list] == list(
        ShortLink.objects.order_by("-created_at", "-pk").values_list("pk", flat=True)
    )
    counts = [query["sql"] for query in queries.captured_queries if "COUNT(" in query["sql"].upper()]
    if connection.vendor == "postgresql":
        # Never the whole table: a count that stops at the bound, then the planner's estimate.
        assert counts and all("LIMIT 4" in sql for sql in counts)
        assert changelist.result_count >= 4
        assert any(query["sql"].startswith("EXPLAIN") for query in queries.captured_queries)
    else:
        # SQLite (sized for 10^5 rows here) counts exactly past the bound.
        assert changelist.result_count == 6


def test_whole_admin_changelist_counts_nothing_and_its_last_page_is_the_offset_page(admin_client, user, other_user):
    tied_links(user, 130)
    ShortLinkFactory.create_batch(95, owner=other_user)
    ShortLink.objects.filter(pk=ShortLink.objects.order_by("pk")[3].pk).delete()
    every = ShortLink.objects.order_by("-created_at", "-pk")

    per_page = ShortLinkAdmin.list_per_page
    pages = -(-224 // per_page)
    for page in range(1, pages + 1):
        with CaptureQueriesContext(connection) as queries:
            response = admin_client.get("/admin/shortener/shortlink/", {"p": page})

        changelist = response.context["cl"]
        assert changelist.result_count == every.count() == 224
        assert [link.pk for link in changelist.result_list] == list(
            every.values_list("pk", flat=True)[(page - 1) * per_page : page * per_page]
        ), f"page {page}"
        counts = [query["sql"] for query in queries.captured_queries if "COUNT(" in query["sql"].upper()]
        # On PostgreSQL the size of the table is kept (LinkTally): no count at all.
        assert not counts or connection.vendor != "postgresql"
    assert "224 short links" in admin_client.get("/admin/shortener/shortlink/", {"p": pages}).content.decode()


def days_apart_links(owner, count: int, *, seed: int) -> list[ShortLink]:
    """Links over several UTC days and months, tied to the microsecond, some at midnight, some deleted."""
    rng = random.Random(seed)
    month = timezone.now().replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    links = [
        ShortLinkFactory(
            owner=owner,
            created_at=month - datetime.timedelta(days=rng.choice([0, 0, 1, 31, 40]), minutes=rng.choice([0, 0, 1, 7])),
        )
        for _ in range(count)
    ]
    ShortLink.objects.filter(pk__in=[link.pk for link in rng.sample(links, count // 6)]).update(deleted_at=month)
    return links


def assert_admin_pages_are_offset_pages(admin_client, params: dict, paginator: type) -> None:
    """Every page of the admin's list of links (and one past the end) is what OFFSET returns."""
    per_page = ShortLinkAdmin.list_per_page
    total = admin_client.get("/admin/shortener/shortlink/", params).context["cl"].queryset.count()
    for page in range(1, -(-total // per_page) + 1):
        changelist = admin_client.get("/admin/shortener/shortlink/", {**params, "p": page}).context["cl"]

        assert type(changelist.paginator) is paginator
        offset = (page - 1) * per_page
        offset_pks = changelist.queryset.values_list("pk", flat=True)[offset : offset + per_page]
        assert [link.pk for link in changelist.result_list] == list(offset_pks), f"page {page} of {params}"


def test_every_admin_changelist_page_is_the_offset_page_after_links_change(admin_client, user, other_user, monkeypatch):
    monkeypatch.setattr(ShortLinkAdmin, "list_per_page", 4)
    links = days_apart_links(user, 40, seed=3) + days_apart_links(other_user, 15, seed=4)
    assert_admin_pages_are_offset_pages(admin_client, {}, NewestLinksPaginator)

    # New links, removals, a link moved to another day and month, one moved within its day.
    days_apart_links(user, 9, seed=5)
    ShortLink.objects.filter(pk__in=[link.pk for link in links[1:30:7]]).delete()
    ShortLink.objects.filter(pk=links[2].pk).update(created_at=links[3].created_at - datetime.timedelta(days=33))
    ShortLink.objects.filter(pk=links[4].pk).update(created_at=links[4].created_at + datetime.timedelta(seconds=1))
    other_user.delete()

    assert_admin_pages_are_offset_pages(admin_client, {}, NewestLinksPaginator)
    # Sorted by another column, or searched: the tallies do not apply, the OFFSET page is read.
    assert_admin_pages_are_offset_pages(admin_client, {"o": "4"}, KeptCountPaginator)
    assert_admin_pages_are_offset_pages(admin_client, {"o": "6"}, KeptCountPaginator)
    # Sorted by the creation column, newest first: the same order as the default one.
    assert_admin_pages_are_offset_pages(admin_client, {"o": "-6"}, NewestLinksPaginator)
    assert_admin_pages_are_offset_pages(admin_client, {"q": "example"}, EstimatedCountPaginator)


@ON_POSTGRESQL
def test_the_day_tallies_find_every_links_key_and_are_the_links_by_day(user, other_user):
    days_apart_links(user, 50, seed=6)
    ShortLink.objects.filter(pk=ShortLink.objects.order_by("pk")[5].pk).delete()
    ShortLink.objects.filter(owner=user).order_by("pk")[:1].get().delete()
    keys = list(ShortLink.objects.order_by(*NEWEST).values_list("created_at", "pk"))

    assert [created_key_at(offset) for offset in range(len(keys))] == keys
    assert created_key_at(len(keys)) is None
    by_day = ShortLink.objects.annotate(day=TruncDate("created_at")).values("day").annotate(n=Count("id"))
    kept = LinkTally.objects.filter(key__startswith=CREATED).values_list("key", "value")
    assert dict(kept) == {f"{CREATED}{row['day']:%Y-%m-%d}": row["n"] for row in by_day}


def test_admin_changelist_counts_exactly_below_the_bound(admin_client, user):
    ShortLinkFactory.create_batch(4, owner=user)

    response = admin_client.get("/admin/shortener/shortlink/")

    assert response.context["cl"].result_count == 4


def test_admin_changelist_is_for_staff_only(client, alice_client):
    assert client.get("/admin/shortener/shortlink/").status_code == status.HTTP_302_FOUND
    assert alice_client.get("/admin/shortener/shortlink/").status_code == status.HTTP_302_FOUND


def test_visits_of_a_limited_link_count_in_its_chart_as_they_happen(client, user):
    link = ShortLinkFactory(owner=user, max_visits=3)
    today = timezone.now().date()

    statuses = [
        client.get(f"/s/{link.code}", HTTP_USER_AGENT=agent).status_code
        for agent in ("Firefox/1", "Firefox/2", "Firefox/2", "Firefox/3", "Firefox/4")
    ]

    # No flush: a limited link's visit is counted in the request, its chart in the same transaction.
    assert statuses == [302, 302, 302, 302, 404]
    link.refresh_from_db()
    assert link.counter == 3
    assert daily_table(link.pk) == raw_per_day(link.pk) == {today: 3}
    assert link_chart(link.pk).total == site_chart().total == 3
