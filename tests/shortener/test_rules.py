"""Redirect rules, per-link forwarding and redirect status (issue 46): the API, the fast path, the counts."""

import datetime
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework import status

from shortener.fastpath import flush_visits
from shortener.models import ShortLink, VisitBreakdown
from shortener.rules import FALLBACK, clean_rules, rule_key
from tests.shortener.asserts import assert_shortener_error
from tests.shortener.factories import ShortLinkFactory
from tests.shortener.test_redirect_shortcut import wsgi_request

pytestmark = pytest.mark.django_db

IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.5 Mobile/15E148 Safari/604.1"
)
ANDROID = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36"
)
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"
THREE_RULES = [
    {"when": {"device": "ios"}, "url": "https://apps.apple.com/app"},
    {"when": {"device": "android"}, "url": "https://play.google.com/app"},
    {"when": {"language": "fr"}, "url": "https://example.fr/"},
]


def ruled_link(rules=THREE_RULES, **fields) -> ShortLink:
    return ShortLinkFactory(code="abc", url="https://example.com/", rules=clean_rules(rules), **fields)


def location(path: str = "/s/abc", **headers) -> tuple[int, str]:
    code, response_headers, _ = wsgi_request(path, **headers)
    return code, response_headers.get("Location", "")


# --- The rules' checks -------------------------------------------------------------------------


def test_rules_are_normalised_when_saved():
    rules = clean_rules(
        json.dumps(
            [
                {"when": {"device": "IOS", "language": "FR-ca", "country": "fr"}, "url": " https://a.example/ "},
                {"when": {"query": {"ref": "mail", "beta": None}}, "url": "https://b.example/"},
                {
                    "when": {"after": "2026-01-01T10:00", "before": "2026-01-02T10:00+02:00"},
                    "url": "https://c.example/",
                },
            ]
        )
    )

    assert rules == [
        {"when": {"device": "ios", "language": "fr-CA", "country": "FR"}, "url": "https://a.example/"},
        {"when": {"query": {"ref": "mail", "beta": None}}, "url": "https://b.example/"},
        {
            "when": {"after": "2026-01-01T10:00:00+00:00", "before": "2026-01-02T08:00:00+00:00"},
            "url": "https://c.example/",
        },
    ]


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ("not json", 'The rules must be a JSON array of {"when": {…}, "url": "https://…"} objects.'),
        ('{"when": {}}', 'The rules must be a JSON array of {"when": {…}, "url": "https://…"} objects.'),
        ([{"when": {"device": "ios"}, "url": "https://a.example/"}] * 21, "A link has at most 20 rules."),
        (["https://a.example/"], 'Rule 1: each rule must be an object {"when": {…}, "url": "https://…"}.'),
        ([{"when": {"device": "ios"}}], 'Rule 1: each rule must be an object {"when": {…}, "url": "https://…"}.'),
        ([{"when": {"device": "ios"}, "url": "https://a.example/", "x": 1}], "Rule 1: each rule must be an object"),
        ([{"when": {}, "url": "https://a.example/"}], 'Rule 1: "when" must be an object with at least one of'),
        ([{"when": [], "url": "https://a.example/"}], 'Rule 1: "when" must be an object with at least one of'),
        ([{"when": {"os": "ios"}, "url": "https://a.example/"}], 'Rule 1: unknown condition "os"'),
        ([{"when": {"device": "tablet"}, "url": "https://a.example/"}], 'Rule 1: "device" must be one of ios'),
        ([{"when": {"device": 1}, "url": "https://a.example/"}], 'Rule 1: "device" must be one of ios'),
        ([{"when": {"language": "french"}, "url": "https://a.example/"}], 'Rule 1: "language" must be a language'),
        ([{"when": {"country": "FRA"}, "url": "https://a.example/"}], 'Rule 1: "country" must be a two-letter'),
        ([{"when": {"query": "ref"}, "url": "https://a.example/"}], 'Rule 1: "query" must be an object'),
        ([{"when": {"query": {}}, "url": "https://a.example/"}], 'Rule 1: "query" must be an object'),
        ([{"when": {"query": {"a": 1}}, "url": "https://a.example/"}], 'Rule 1: the "query" value of "a" must be'),
        ([{"when": {"after": "tomorrow"}, "url": "https://a.example/"}], 'Rule 1: "after" must be a date and time'),
        ([{"when": {"before": None}, "url": "https://a.example/"}], 'Rule 1: "before" must be a date and time'),
        (
            [{"when": {"after": "2026-02-01", "before": "2026-01-01"}, "url": "https://a.example/"}],
            'Rule 1: "after" must be earlier than "before".',
        ),
        ([{"when": {"device": "ios"}, "url": 5}], 'Rule 1: "url" must be a string.'),
        ([{"when": {"device": "ios"}, "url": "ftp://a.example/"}], "Rule 1: ftp://a.example/ is not a valid URL.."),
        (
            [{"when": {"device": "ios"}, "url": "https://a.example/"}, {"when": {"device": "x"}, "url": "https://b/"}],
            "Rule 2:",
        ),
        ([{"when": {"language": "fr\x00"}, "url": "https://a.example/"}], 'Rule 1: "language" must be'),
    ],
)
def test_bad_rules_are_refused_with_the_rule_and_the_reason(rules, message):
    from shortener.errors import Failure

    with pytest.raises(Failure) as raised:
        clean_rules(rules if isinstance(rules, str) else json.dumps(rules))

    assert raised.value.status == 400
    assert raised.value.msg.startswith(message)


def test_a_rule_to_a_blocked_host_is_refused_as_the_link_would_be(settings):
    from shortener.errors import Failure

    settings.SHORTENER_BLOCKED_HOSTS = r"(^|\.)evil\.example$"
    with pytest.raises(Failure) as raised:
        clean_rules([{"when": {"device": "ios"}, "url": "https://evil.example/"}])

    assert raised.value.status == 403
    assert raised.value.msg.startswith("Rule 1: ")


# --- Evaluation on the fast path -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "target"),
    [
        ({"HTTP_USER_AGENT": IPHONE}, "https://apps.apple.com/app"),
        ({"HTTP_USER_AGENT": ANDROID, "HTTP_ACCEPT_LANGUAGE": "fr"}, "https://play.google.com/app"),
        ({"HTTP_USER_AGENT": FIREFOX, "HTTP_ACCEPT_LANGUAGE": "fr-CA,en;q=0.5"}, "https://example.fr/"),
        ({"HTTP_USER_AGENT": FIREFOX, "HTTP_ACCEPT_LANGUAGE": "en, fr;q=0.5"}, "https://example.fr/"),
        ({"HTTP_USER_AGENT": FIREFOX, "HTTP_ACCEPT_LANGUAGE": "en, fr;q=0"}, "https://example.com/"),
        ({"HTTP_USER_AGENT": FIREFOX}, "https://example.com/"),
    ],
)
def test_the_first_matching_rule_sends_the_visitor(headers, target):
    ruled_link()

    assert location(**headers) == (302, target)  # the view, filling the cache
    assert location(**headers) == (302, target)  # the shortcut, from the cached copy


def test_a_language_the_visitor_prefers_wins_over_an_earlier_rule_for_one_they_accept_less():
    ruled_link(
        [
            {"when": {"language": "fr"}, "url": "https://example.fr/"},
            {"when": {"language": "de-CH"}, "url": "https://example.ch/"},
        ]
    )

    assert location(HTTP_ACCEPT_LANGUAGE="de-CH, fr;q=0.9")[1] == "https://example.ch/"
    assert location(HTTP_ACCEPT_LANGUAGE="de-DE, fr;q=0.9")[1] == "https://example.fr/"  # de-CH is not de-DE
    assert location(HTTP_ACCEPT_LANGUAGE="fr-BE, de-CH;q=0.9")[1] == "https://example.fr/"


def test_country_rules_use_the_client_address(settings):
    ruled_link([{"when": {"country": "FR"}, "url": "https://example.fr/"}])

    assert location(REMOTE_ADDR="193.51.24.1")[1] == "https://example.fr/"
    assert location(REMOTE_ADDR="8.8.8.8")[1] == "https://example.com/"
    assert location(REMOTE_ADDR="127.0.0.1")[1] == "https://example.com/"


def test_query_rules_match_a_value_or_a_presence():
    ruled_link(
        [
            {"when": {"query": {"ref": "mail"}}, "url": "https://mail.example/"},
            {"when": {"query": {"beta": None}}, "url": "https://beta.example/"},
        ]
    )

    assert location("/s/abc?ref=mail")[1] == "https://mail.example/"
    assert location("/s/abc?ref=web")[1] == "https://example.com/"
    assert location("/s/abc?beta")[1] == "https://beta.example/"
    assert location("/s/abc?beta=&ref=web")[1] == "https://beta.example/"
    assert location("/s/abc")[1] == "https://example.com/"


def test_time_window_rules_hold_only_inside_their_window():
    now = timezone.now()
    ruled_link(
        [
            {"when": {"before": (now - datetime.timedelta(hours=1)).isoformat()}, "url": "https://past.example/"},
            {"when": {"after": (now + datetime.timedelta(hours=1)).isoformat()}, "url": "https://future.example/"},
            {
                "when": {
                    "after": (now - datetime.timedelta(hours=1)).isoformat(),
                    "before": (now + datetime.timedelta(hours=1)).isoformat(),
                },
                "url": "https://now.example/",
            },
        ]
    )

    assert location()[1] == "https://now.example/"


def test_all_conditions_of_a_rule_must_hold():
    ruled_link([{"when": {"device": "ios", "language": "fr"}, "url": "https://ios-fr.example/"}])

    assert location(HTTP_USER_AGENT=IPHONE, HTTP_ACCEPT_LANGUAGE="fr")[1] == "https://ios-fr.example/"
    assert location(HTTP_USER_AGENT=IPHONE, HTTP_ACCEPT_LANGUAGE="en")[1] == "https://example.com/"
    assert location(HTTP_USER_AGENT=FIREFOX, HTTP_ACCEPT_LANGUAGE="fr")[1] == "https://example.com/"


def test_a_ruled_link_is_followed_from_the_cache_with_no_query():
    ruled_link()
    location(HTTP_USER_AGENT=IPHONE)  # cached by the view

    with CaptureQueriesContext(connection) as queries:
        code, headers, _ = wsgi_request("/s/abc", HTTP_USER_AGENT=ANDROID)

    assert (code, headers["Location"]) == (302, "https://play.google.com/app")
    assert "X-Frame-Options" not in headers  # answered by the shortcut, not Django's middleware
    assert len(queries) == 0


def test_visits_count_on_the_link_whatever_rule_matched_and_per_rule_in_the_stats(client):
    link = ruled_link()
    for headers in (
        {"HTTP_USER_AGENT": IPHONE, "REMOTE_ADDR": "10.0.0.1"},
        {"HTTP_USER_AGENT": IPHONE, "REMOTE_ADDR": "10.0.0.2"},
        {"HTTP_USER_AGENT": IPHONE, "REMOTE_ADDR": "10.0.0.2"},  # the same visitor again: not a new visit
        {"HTTP_USER_AGENT": ANDROID, "REMOTE_ADDR": "10.0.0.3"},
        {"HTTP_USER_AGENT": FIREFOX, "REMOTE_ADDR": "10.0.0.4"},
        {"HTTP_USER_AGENT": "Twitterbot/1.0", "REMOTE_ADDR": "10.0.0.5"},  # a robot: no visit
    ):
        wsgi_request("/s/abc", **headers)
    flush_visits()

    link.refresh_from_db()
    assert link.counter == 4
    rows = dict(VisitBreakdown.objects.filter(link=link, dimension="rules").values_list("name", "visits"))
    keys = [rule_key(rule) for rule in link.rules]
    assert rows == {keys[0]: 2, keys[1]: 1, FALLBACK: 1}

    body = client.get("/s/stats/abc", {"_format": "json"}).json()
    assert body["counter"] == 4
    assert [(rule["url"], rule["visits"]) for rule in body["rules"]] == [
        ("https://apps.apple.com/app", 2),
        ("https://play.google.com/app", 1),
        ("https://example.fr/", 0),
    ]
    assert body["rules"][0]["when"] == {"device": "ios"}
    assert body["unmatched_visits"] == 1


def test_reordering_rules_keeps_their_counts(alice_client, user):
    link = ruled_link(owner=user)
    wsgi_request("/s/abc", HTTP_USER_AGENT=IPHONE)
    flush_visits()

    response = alice_client.patch(
        "/s/edit/abc", {"rules": list(reversed(THREE_RULES))}, content_type="application/json"
    )

    assert response.status_code == status.HTTP_200_OK
    body = alice_client.get("/s/stats/abc", {"_format": "json"}).json()
    assert [(rule["url"], rule["visits"]) for rule in body["rules"]] == [
        ("https://example.fr/", 0),
        ("https://play.google.com/app", 0),
        ("https://apps.apple.com/app", 1),
    ]
    link.refresh_from_db()
    assert link.counter == 1


def test_a_plain_link_counts_no_rule_row():
    link = ShortLinkFactory(code="abc")
    wsgi_request("/s/abc")
    flush_visits()

    assert not VisitBreakdown.objects.filter(link=link, dimension="rules").exists()


def test_a_limited_link_follows_its_rules_and_counts_them():
    link = ruled_link(max_visits=5)

    assert location(HTTP_USER_AGENT=IPHONE)[1] == "https://apps.apple.com/app"
    assert location(HTTP_USER_AGENT=ANDROID, REMOTE_ADDR="10.0.0.9")[1] == "https://play.google.com/app"
    link.refresh_from_db()
    assert link.counter == 2
    assert VisitBreakdown.objects.filter(link=link, dimension="rules").count() == 2


def test_a_protected_link_follows_its_rules_after_the_password(client):
    from django.contrib.auth.hashers import make_password

    ruled_link(password_hash=make_password("sesame"))

    response = client.post("/s/abc", {"password": "sesame"}, HTTP_USER_AGENT=IPHONE)

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "https://apps.apple.com/app"


def test_the_json_resolve_still_answers_the_links_own_url():
    ruled_link()

    code, _, body = wsgi_request("/s/abc", data={"_format": "json"}, HTTP_USER_AGENT=IPHONE)

    assert code == 200
    assert json.loads(body) == {"success": True, "url": "https://example.com/"}


# --- Forwarding and redirect status --------------------------------------------------------------


def test_by_default_nothing_is_forwarded_and_the_status_is_the_servers():
    ShortLinkFactory(code="abc", url="https://example.com/a?x=1")

    assert location("/s/abc?utm=1") == (302, "https://example.com/a?x=1")
    code, _, body = wsgi_request("/s/abc/more/path")
    assert code == status.HTTP_404_NOT_FOUND
    assert b"/s/abc/more/path" in body


def test_forward_query_merges_the_visitors_query_into_the_targets():
    ShortLinkFactory(code="abc", url="https://example.com/a?x=1&keep=yes", forward_query=True)

    assert location("/s/abc?x=2&utm_source=mail") == (302, "https://example.com/a?keep=yes&x=2&utm_source=mail")
    assert location("/s/abc") == (302, "https://example.com/a?x=1&keep=yes")
    assert location("/s/abc?_format=html&y=1") == (302, "https://example.com/a?x=1&keep=yes&y=1")


def test_forward_path_appends_the_extra_path():
    ShortLinkFactory(code="abc", url="https://example.com/docs/?v=2", forward_path=True, forward_query=True)

    assert location("/s/abc/guide/intro") == (302, "https://example.com/docs/guide/intro?v=2")
    assert location("/s/abc/guide?lang=fr") == (302, "https://example.com/docs/guide?v=2&lang=fr")
    assert location("/s/abc") == (302, "https://example.com/docs/?v=2")


def test_forward_path_applies_to_the_rules_target_too():
    ruled_link(forward_path=True)

    assert location("/s/abc/item/7", HTTP_USER_AGENT=IPHONE) == (302, "https://apps.apple.com/app/item/7")


def test_an_unknown_code_with_a_path_is_404_in_cs_shape(client):
    response = client.get("/s/nope/more", {"_format": "json"})

    assert_shortener_error(response, 404, "The shortened URL http://testserver/s/nope/more doesn't exist.")


@pytest.mark.parametrize("redirect_status", [301, 302, 307, 308])
def test_a_links_redirect_status_is_used_by_the_view_and_the_shortcut(redirect_status):
    ShortLinkFactory(code="abc", url="https://example.com/", redirect_status=redirect_status)

    assert location() == (redirect_status, "https://example.com/")
    assert location() == (redirect_status, "https://example.com/")


def test_without_its_own_status_a_link_follows_the_server_setting(settings):
    settings.SHORTENER_REDIRECT_PERMANENT = True
    ShortLinkFactory(code="abc", url="https://example.com/")

    assert location()[0] == 301


# --- The API: /a, /edit/<code>, /stats/<code> ----------------------------------------------------


def test_create_takes_rules_and_options_in_a_json_body(alice_client):
    response = alice_client.post(
        "/s/a",
        {
            "shorturl": "https://example.com/",
            "rules": THREE_RULES,
            "forward_query": True,
            "forward_path": False,
            "redirect_status": 307,
        },
        content_type="application/json",
    )

    assert response.status_code == status.HTTP_200_OK
    body = response.json()
    assert body["rules"] == THREE_RULES
    assert body["forward_query"] is True
    assert "forward_path" not in body  # off, as Lstu: not in the answer
    assert body["redirect_status"] == 307
    link = ShortLink.objects.get()
    assert (link.rules, link.forward_query, link.forward_path, link.redirect_status) == (THREE_RULES, True, False, 307)


def test_create_takes_rules_as_a_json_string_in_a_form(alice_client):
    response = alice_client.post(
        "/s/a",
        {
            "shorturl": "https://example.com/",
            "rules": json.dumps(THREE_RULES),
            "forward_path": "1",
            "redirect_status": "308",
            "_format": "json",
        },
    )

    assert response.status_code == status.HTTP_200_OK
    link = ShortLink.objects.get()
    assert (link.rules, link.forward_path, link.redirect_status) == (THREE_RULES, True, 308)


def test_a_plain_link_keeps_lstus_answer_shape(alice_client):
    response = alice_client.post("/s/a", {"shorturl": "https://example.com/", "_format": "json"})

    assert set(response.json()) == {"success", "url", "short", "qrcode"}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("rules", "[", 'The rules must be a JSON array of {"when": {…}, "url": "https://…"} objects.'),
        ("rules", '[{"when": {"device": "fridge"}, "url": "https://a.example/"}]', 'Rule 1: "device" must be one of'),
        ("forward_query", "maybe", 'The field "forward_query" must be true or false ("1" or "0").'),
        ("forward_path", "2", 'The field "forward_path" must be true or false ("1" or "0").'),
        ("redirect_status", "303", "The redirect status must be one of 301, 302, 307, 308."),
        ("redirect_status", "abc", "The redirect status must be one of 301, 302, 307, 308."),
    ],
)
def test_create_refuses_bad_options_and_writes_nothing(alice_client, field, value, message):
    response = alice_client.post("/s/a", {"shorturl": "https://example.com/", field: value, "_format": "json"})

    assert response.status_code == status.HTTP_400_BAD_REQUEST
    assert response.json()["success"] is False
    assert response.json()["msg"].startswith(message)
    assert not ShortLink.objects.exists()


@pytest.mark.parametrize(
    "body",
    [
        {"shorturl": "https://example.com/", "rules": {"when": {}}},
        {"shorturl": "https://example.com/", "forward_query": 1},
        {"shorturl": "https://example.com/", "redirect_status": True},
        {"shorturl": "https://example.com/", "redirect_status": 3.5},
    ],
)
def test_create_refuses_wrong_json_types(alice_client, body):
    response = alice_client.post("/s/a", body, content_type="application/json")

    assert response.status_code == status.HTTP_400_BAD_REQUEST
    assert response.json()["success"] is False
    assert not ShortLink.objects.exists()


def test_asking_again_for_the_same_url_with_other_rules_is_a_conflict(alice_client):
    first = alice_client.post("/s/a", {"shorturl": "https://example.com/", "_format": "json"}).json()

    again = alice_client.post(
        "/s/a", {"shorturl": "https://example.com/", "rules": THREE_RULES}, content_type="application/json"
    )
    same = alice_client.post("/s/a", {"shorturl": "https://example.com/", "forward_query": "0", "_format": "json"})

    assert again.status_code == status.HTTP_409_CONFLICT
    assert "edit it, or give a custom text" in again.json()["msg"]
    assert same.json()["short"] == first["short"]  # nothing would change: the same link
    assert ShortLink.objects.get().rules == []


def test_a_custom_link_may_have_rules_beside_a_plain_one(alice_client):
    alice_client.post("/s/a", {"shorturl": "https://example.com/", "_format": "json"})

    response = alice_client.post(
        "/s/a",
        {"shorturl": "https://example.com/", "shorturl-custom": "ruled", "rules": THREE_RULES},
        content_type="application/json",
    )

    assert response.status_code == status.HTTP_200_OK
    assert ShortLink.objects.get(code="ruled").rules == THREE_RULES


def test_edit_sets_and_clears_the_options_as_owner(alice_client, user):
    link = ShortLinkFactory(code="abc", owner=user, url="https://example.com/")

    response = alice_client.patch(
        "/s/edit/abc",
        {"rules": THREE_RULES, "forward_path": True, "redirect_status": 301},
        content_type="application/json",
    )
    assert response.status_code == status.HTTP_200_OK
    assert response.json()["rules"] == THREE_RULES
    link.refresh_from_db()
    assert (link.rules, link.forward_path, link.redirect_status) == (THREE_RULES, True, 301)
    assert location(HTTP_USER_AGENT=IPHONE) == (301, "https://apps.apple.com/app")

    response = alice_client.patch(
        "/s/edit/abc", {"rules": [], "forward_path": False, "redirect_status": ""}, content_type="application/json"
    )
    assert response.status_code == status.HTTP_200_OK
    assert {"rules", "forward_path", "redirect_status"}.isdisjoint(response.json())
    link.refresh_from_db()
    assert (link.rules, link.forward_path, link.redirect_status) == ([], False, None)
    assert location(HTTP_USER_AGENT=IPHONE) == (302, "https://example.com/")  # every copy dropped


def test_edit_refuses_bad_rules_and_changes_nothing(alice_client, user):
    link = ruled_link(owner=user)

    body = {"url": "https://new.example/", "rules": [{"when": {}, "url": "x"}]}
    response = alice_client.patch("/s/edit/abc", body, content_type="application/json")

    assert response.status_code == status.HTTP_400_BAD_REQUEST
    link.refresh_from_db()
    assert (link.url, link.rules) == ("https://example.com/", clean_rules(THREE_RULES))


def test_edit_of_someone_elses_link_is_refused(bob_client, user):
    ShortLinkFactory(code="abc", owner=user)

    response = bob_client.patch("/s/edit/abc", {"rules": THREE_RULES}, content_type="application/json")

    assert_shortener_error(response, 403, "The shortened URL http://testserver/s/abc is not yours.")
    assert ShortLink.objects.get().rules == []


def test_edit_needs_a_login(client, user):
    ShortLinkFactory(code="abc", owner=user)

    response = client.patch("/s/edit/abc", {"rules": THREE_RULES}, content_type="application/json")

    assert_shortener_error(response, 401, "You need to log in first.")
    assert ShortLink.objects.get().rules == []


def test_edit_of_an_unknown_code_is_404(alice_client):
    response = alice_client.patch("/s/edit/nope", {"rules": THREE_RULES}, content_type="application/json")

    assert_shortener_error(response, 404, "The shortened URL http://testserver/s/nope doesn't exist.")


def test_stats_return_the_options_to_anyone(client):
    ruled_link(forward_query=True, redirect_status=308)

    body = client.get("/s/stats/abc", {"_format": "json"}).json()

    assert [rule["url"] for rule in body["rules"]] == [rule["url"] for rule in THREE_RULES]
    assert (body["forward_query"], body["redirect_status"]) == (True, 308)


# --- Export and import ---------------------------------------------------------------------------


def test_export_and_import_carry_the_options(alice_client, bob_client, user):
    ruled_link(owner=user, is_custom=True, forward_query=True, forward_path=True, redirect_status=307)
    ShortLinkFactory(owner=user, code="plain", is_custom=True, url="https://plain.example/")

    exported = alice_client.get("/s/export").getvalue()
    rows = json.loads(exported)
    assert rows[0]["rules"] == THREE_RULES
    assert "rules" not in rows[1]
    csv_export = alice_client.get("/s/export.csv").getvalue()
    ShortLink.objects.all().delete()

    from django.core.files.uploadedfile import SimpleUploadedFile

    for name, content in (("links.json", exported), ("links.csv", csv_export)):
        response = bob_client.post("/s/import", {"file": SimpleUploadedFile(name, content), "_format": "json"})
        assert response.status_code == status.HTTP_200_OK, response.content
        assert response.json()["created"] == 2
        link = ShortLink.objects.get(code="abc")
        assert (link.rules, link.forward_query, link.forward_path, link.redirect_status) == (
            THREE_RULES,
            True,
            True,
            307,
        )
        assert ShortLink.objects.get(code="plain").rules == []
        ShortLink.objects.all().delete()


def test_an_import_line_with_bad_rules_is_refused_alone(alice_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    content = json.dumps(
        [
            {"url": "https://a.example/", "rules": [{"when": {"device": "toaster"}, "url": "https://b.example/"}]},
            {"url": "https://c.example/", "redirect_status": 308},
        ]
    ).encode()

    body = alice_client.post("/s/import", {"file": SimpleUploadedFile("l.json", content), "_format": "json"}).json()

    assert [line["status"] for line in body["lines"]] == ["refused", "created"]
    assert body["lines"][0]["msg"].startswith('Rule 1: "device" must be one of')
    assert ShortLink.objects.get().redirect_status == 308


# --- On PostgreSQL, in parallel ------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_flushes_count_each_visitor_once_in_the_counter_and_in_its_rule():
    from shortener.fastpath.visits import VisitBuffer
    from tests.concurrency import run_concurrently

    link = ruled_link()
    keys = [rule_key(rule) for rule in link.rules] + [FALLBACK]
    day = datetime.date(2026, 5, 1)
    visits = [((link.pk, f"{n:032d}", day), ("Firefox", "", "FR", keys[n % len(keys)])) for n in range(40)]
    buffers = []
    for offset in range(8):
        # Each "process" saw the same visits, in its own order, as two processes behind a balancer may.
        buffer = VisitBuffer()
        buffer.start_flusher = lambda: None
        for n in range(len(visits)):
            buffer.add(*visits[(n + offset * 7) % len(visits)])
        buffers.append(buffer)
    slots = iter(buffers)

    results = run_concurrently(lambda: next(slots).flush(), times=len(buffers))

    assert sum(results) == len(visits)
    link.refresh_from_db()
    assert link.counter == len(visits)
    rows = dict(VisitBreakdown.objects.filter(link=link, dimension="rules").values_list("name", "visits"))
    assert rows == dict.fromkeys(keys, 10)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_visits_counted_during_the_request_each_count_their_rule(settings):
    from django.test import Client

    from tests.concurrency import run_concurrently

    settings.SHORTENER_VISIT_FLUSH_SECONDS = 0
    link = ruled_link()
    agents = iter([IPHONE, ANDROID, FIREFOX] * 4)
    addresses = iter([f"192.0.2.{n}" for n in range(1, 13)])

    def visit() -> str:
        response = Client().get("/s/abc", REMOTE_ADDR=next(addresses), HTTP_USER_AGENT=next(agents))
        return response["Location"]

    results = run_concurrently(visit, times=12)

    assert sorted(results) == sorted(
        ["https://apps.apple.com/app", "https://play.google.com/app", "https://example.com/"] * 4
    )
    link.refresh_from_db()
    assert link.counter == 12
    rows = dict(VisitBreakdown.objects.filter(link=link, dimension="rules").values_list("name", "visits"))
    assert rows == {rule_key(link.rules[0]): 4, rule_key(link.rules[1]): 4, FALLBACK: 4}
