"""The code → link lookup cache of each process: preloading, expiry, changes made elsewhere."""

import threading

import pytest
from django.utils import timezone
from rest_framework import status

from shortener import messages
from shortener.fastpath import links
from shortener.fastpath.links import _cache_key, bump_links_version, cache, links_version, local_links
from shortener.models import ShortLink
from tests.shortener.asserts import assert_shortener_error_page
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db


GONE = messages.LINK_GONE.format(short="http://testserver/s/abc")


def delete_behind_the_caches_back(code: str) -> None:
    # What another process's deletion looks like from here: no signal in this process.
    ShortLink.objects.filter(code=code).update(deleted_at=timezone.now())


def test_link_deleted_by_another_process_stops_redirecting_at_the_next_version_check(client):
    ShortLinkFactory(code="abc")
    assert client.get("/s/abc").status_code == status.HTTP_302_FOUND

    delete_behind_the_caches_back("abc")
    cache.delete(_cache_key("", "abc"))  # as that process's forget_cached_link does (Redis)
    bump_links_version()
    local_links.check_version()  # what this process's watcher thread does every second

    assert_shortener_error_page(client.get("/s/abc"), 404, GONE)


def test_cached_lookup_lives_no_longer_than_cache_seconds(client, settings):
    settings.SHORTENER_CACHE_SECONDS = 0
    ShortLinkFactory(code="abc")
    assert client.get("/s/abc").status_code == status.HTTP_302_FOUND

    delete_behind_the_caches_back("abc")

    assert_shortener_error_page(client.get("/s/abc"), 404, GONE)


def test_creating_a_link_keeps_the_other_cached_lookups(client, django_assert_num_queries):
    ShortLinkFactory(code="abc")
    client.get("/s/abc")

    ShortLinkFactory(code="new")

    with django_assert_num_queries(0):
        response = client.get("/s/abc")

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == ShortLink.objects.get(code="abc").url


def test_preload_caches_the_most_visited_links_first(client, django_assert_num_queries):
    ShortLinkFactory(code="hot", url="https://hot.example/", counter=5)
    ShortLinkFactory(code="cold", counter=1)

    assert local_links.preload(1) == 1

    with django_assert_num_queries(0):
        response = client.get("/s/hot")
    assert response["Location"] == "https://hot.example/"
    assert local_links.get(("", "cold")) is None


def test_preload_leaves_deleted_links_out(client):
    ShortLinkFactory(code="live")
    ShortLinkFactory(code="gone", deleted_at=timezone.now())

    assert local_links.preload(10) == 1

    assert client.get("/s/gone").status_code == status.HTTP_404_NOT_FOUND


def test_every_change_or_removal_of_a_link_bumps_the_shared_version():
    link = ShortLinkFactory(code="abc")
    created = links_version()

    link.url = "https://changed.example/"
    link.save()
    changed = links_version()
    link.delete()

    assert changed == created + 1
    assert links_version() == changed + 1


def test_each_process_checks_the_version_in_a_thread_of_its_own(monkeypatch, settings):
    settings.SHORTENER_CACHE_PRELOAD = 0
    monkeypatch.setattr(links, "VERSION_CHECK_SECONDS", 0.01)
    checked = threading.Event()
    process_links = links.LocalLinks()

    def check_once() -> None:
        checked.set()
        threading.Event().wait()  # park this daemon thread: it must not touch the database after the test

    monkeypatch.setattr(process_links, "check_version", check_once)
    process_links.start()

    assert checked.wait(timeout=5)
