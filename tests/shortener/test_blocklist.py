"""SHORTENER_BLOCKLIST_FILE (issue 46, item 5): refused at creation, re-read on change, and the periodic check."""

import os

import pytest
from django.core.cache import cache
from django.core.management import call_command
from rest_framework import status

from shortener import messages
from shortener.models import ShortLink
from shortener.moderation import tasks
from shortener.moderation.blocklist import Blocklist, blocklist, parse
from tests.shortener.asserts import assert_shortener_error
from tests.shortener.conftest import JSON
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

HOSTS_FILE = """\
# a hosts-file list, as the common ad and malware lists ship
127.0.0.1 localhost
::1 localhost ip6-localhost
0.0.0.0 tracker.example ads.example   # two on a line
0.0.0.0 Upper.Example.
evil.example
"""


@pytest.fixture(autouse=True)
def _read_changes_at_once(monkeypatch):
    # A changed list is read by a thread in production; here at once, so that a test sees it.
    monkeypatch.setattr(blocklist, "background", False)


@pytest.fixture
def blocklist_file(tmp_path, settings):
    path = tmp_path / "blocked.txt"
    path.write_text(HOSTS_FILE)
    settings.SHORTENER_BLOCKLIST_FILE = str(path)
    return path


def shorten(client, url):
    return client.post("/s/a", {"shorturl": url, **JSON})


def test_parse_reads_plain_domains_and_hosts_file_lines():
    assert parse(HOSTS_FILE) == {"tracker.example", "ads.example", "upper.example", "evil.example"}


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example/",
        "https://EVIL.example/x",
        "https://deep.sub.evil.example/",
        "http://ads.example:8080/",
        "https://upper.example/",
        "https://evil.example./",
    ],
)
def test_a_listed_domain_and_its_subdomains_are_refused(alice_client, blocklist_file, url):
    response = shorten(alice_client, url)

    assert response.status_code == status.HTTP_403_FORBIDDEN
    assert response.json()["msg"].startswith("The URL you want to shorten comes from a domain")
    assert not ShortLink.objects.exists()


@pytest.mark.parametrize("url", ["https://notevil.example/", "https://example.com/", "https://evil.example.org/"])
def test_a_name_that_only_ends_like_a_listed_one_is_not_refused(alice_client, blocklist_file, url):
    assert shorten(alice_client, url).status_code == status.HTTP_200_OK


def test_the_list_is_read_again_when_the_file_changes(alice_client, blocklist_file):
    assert shorten(alice_client, "https://later.example/").status_code == status.HTTP_200_OK

    blocklist_file.write_text("later.example\n")
    stat = blocklist_file.stat()
    os.utime(blocklist_file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # a new mtime even on coarse clocks

    assert_shortener_error(
        shorten(alice_client, "https://x.later.example/"),
        403,
        messages.HOST_BLOCKLISTED.format(host="x.later.example"),
    )
    assert shorten(alice_client, "https://evil.example/").status_code == status.HTTP_200_OK  # no longer listed


def test_a_changed_file_is_read_by_a_thread_while_the_last_list_serves(blocklist_file):
    reader = Blocklist()
    assert reader.blocked_domain("evil.example") == "evil.example"
    blocklist_file.write_text("other.example\n")
    os.utime(blocklist_file, ns=(0, blocklist_file.stat().st_mtime_ns + 1_000_000))

    assert reader.blocked_domain("evil.example") == "evil.example"  # the last list, not waited for
    with reader._lock:  # held by the reading thread until it is done
        pass
    assert reader.blocked_domain("other.example") == "other.example"
    assert reader.blocked_domain("evil.example") is None


def test_a_missing_file_keeps_the_last_list_read(blocklist_file, settings):
    blocklist = Blocklist()
    assert blocklist.blocked_domain("a.evil.example") == "evil.example"

    blocklist_file.unlink()

    assert blocklist.blocked_domain("a.evil.example") == "evil.example"


def test_the_regex_check_still_applies(alice_client, blocklist_file, settings):
    settings.SHORTENER_BLOCKED_HOSTS = r"spam\.test$"

    assert_shortener_error(
        shorten(alice_client, "https://spam.test/"), 403, messages.HOST_BLOCKED.format(host="spam.test")
    )


def test_the_periodic_check_disables_links_whose_host_became_blocked(client, blocklist_file):
    ShortLinkFactory(code="old", url="https://www.newly.example/page")
    ShortLinkFactory(code="fine", url="https://fine.example/")
    ShortLinkFactory(code="gone", url="https://newly.example/", deleted_at="2026-01-01T00:00:00Z")
    assert client.get("/s/old").status_code == status.HTTP_302_FOUND  # cached now
    blocklist_file.write_text("newly.example\n")
    os.utime(blocklist_file, ns=(0, blocklist_file.stat().st_mtime_ns + 1_000_000))

    disabled = tasks.check_blocked_links.call()

    assert disabled == 1
    assert_shortener_error(
        client.get("/s/old", JSON), 410, messages.LINK_DISABLED.format(short="http://testserver/s/old")
    )
    assert client.get("/s/fine").status_code == status.HTTP_302_FOUND
    old = ShortLink.objects.get(code="old")
    assert old.disabled_reason == "Blocked domain: www.newly.example"
    assert ShortLink.objects.get(code="gone").disabled_at is None
    assert tasks.disable_blocked_links() == 0  # already disabled: nothing more


def test_the_check_is_queued_at_most_once_per_period(blocklist_file, settings):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    cache.delete(tasks.DUE_KEY)
    ShortLinkFactory(code="bad", url="https://evil.example/")

    assert tasks.enqueue_if_due() is True
    assert ShortLink.objects.get(code="bad").is_disabled
    assert tasks.enqueue_if_due() is False


def test_no_check_without_a_list(settings):
    settings.SHORTENER_BLOCKLIST_FILE = ""
    settings.SHORTENER_BLOCKED_HOSTS = ""
    cache.delete(tasks.DUE_KEY)

    assert tasks.enqueue_if_due() is False


def test_the_command_runs_the_check(blocklist_file, capsys):
    ShortLinkFactory(code="bad", url="https://ads.example/")

    call_command("shortener_check_blocklist")

    assert "Disabled 1 link(s)" in capsys.readouterr().out
    assert ShortLink.objects.get(code="bad").is_disabled
