"""Moderation for open instances (issue 46, item 5): reports, the admins' queue, disabled links (410)."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework import status

from shortener import messages
from shortener.models import LinkReport, ShortLink
from shortener.moderation import reports
from tests.shortener.asserts import any_number, assert_shortener_error, assert_shortener_error_page
from tests.shortener.conftest import JSON
from tests.shortener.factories import ShortLinkFactory
from tests.shortener.test_redirect_shortcut import wsgi_request

pytestmark = pytest.mark.django_db

DISABLED = messages.LINK_DISABLED.format(short="http://testserver/s/bad")


@pytest.fixture
def bad(user):
    return ShortLinkFactory(code="bad", url="https://phish.example/login", owner=user)


def report(client, code="bad", reason="Phishing page", **extra):
    return client.post(f"/s/report/{code}", {"reason": reason, **JSON}, **extra)


# --- reporting -------------------------------------------------------------


def test_anyone_reports_a_link_without_an_account(client, bad):
    response = report(client)

    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"success": True, "msg": messages.REPORT_SENT.format(short="http://testserver/s/bad")}
    assert list(LinkReport.objects.values_list("link__code", "reason", "resolved_at")) == [
        ("bad", "Phishing page", None)
    ]


def test_a_report_as_a_json_body(client, bad):
    response = client.post("/s/report/bad", json.dumps({"reason": "spam"}), content_type="application/json")

    assert response.json()["success"] is True
    assert LinkReport.objects.get().reason == "spam"


@pytest.mark.parametrize("who", ["alice_client", "bob_client"])
def test_owner_and_others_may_report_too(request, bad, who):
    assert report(request.getfixturevalue(who)).status_code == status.HTTP_200_OK


def test_the_report_page_has_a_form_and_its_post_thanks_the_reporter(client, bad):
    page = client.get("/s/report/bad")
    assert page.status_code == status.HTTP_200_OK
    assert b'name="reason"' in page.content and b"csrfmiddlewaretoken" in page.content

    thanked = client.post("/s/report/bad", {"reason": "malware"})
    assert thanked.status_code == status.HTTP_200_OK
    assert b"has been sent to the moderators" in thanked.content
    assert LinkReport.objects.count() == 1


def test_the_html_form_needs_the_csrf_token(bad):
    from django.test import Client

    response = Client(enforce_csrf_checks=True).post("/s/report/bad", {"reason": "spam"})

    assert_shortener_error_page(response, 403, messages.CSRF_FAILED)
    assert not LinkReport.objects.exists()


@pytest.mark.parametrize(
    ("reason", "message"),
    [
        ("", messages.REPORT_REASON_MISSING),
        ("   ", messages.REPORT_REASON_MISSING),
        ("x" * 1001, messages.REPORT_REASON_TOO_LONG.format(limit=1000)),
        ("a\x00b", messages.FIELD_HAS_NUL.format(field="reason")),
    ],
)
def test_a_bad_reason_is_refused_and_nothing_is_stored(client, bad, reason, message):
    assert_shortener_error(report(client, reason=reason), 400, message)
    assert not LinkReport.objects.exists()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("{nope", messages.BAD_JSON),
        ("[1]", messages.BAD_JSON),
        ('{"reason": 3}', messages.FIELD_NOT_TEXT.format(field="reason")),
    ],
)
def test_a_malformed_json_body_is_refused(client, bad, body, message):
    response = client.post("/s/report/bad", body, content_type="application/json")

    assert_shortener_error(response, 400, message)
    assert not LinkReport.objects.exists()


def test_a_missing_reason_is_refused_on_the_page_with_the_form_again(client, bad):
    response = client.post("/s/report/bad", {"reason": ""})

    assert_shortener_error_page(response, 400, messages.REPORT_REASON_MISSING)
    assert b'name="reason"' in response.content


def test_an_unknown_or_deleted_code_cannot_be_reported(client, bad):
    ShortLinkFactory(code="gone", deleted_at="2026-01-01T00:00:00Z")

    assert_shortener_error(report(client, "nope"), 404, messages.LINK_UNKNOWN.format(short="http://testserver/s/nope"))
    assert_shortener_error(report(client, "gone"), 404, messages.LINK_GONE.format(short="http://testserver/s/gone"))
    assert not LinkReport.objects.exists()


def test_a_disabled_link_answers_410_to_a_report(client, bad):
    reports.link_disable(link=bad)

    assert_shortener_error(report(client), 410, DISABLED)


def test_get_in_json_and_other_methods_are_405(client, bad):
    assert_shortener_error(client.get("/s/report/bad", JSON), 405, messages.METHOD_NOT_ALLOWED)
    assert_shortener_error(client.put("/s/report/bad?_format=json"), 405, messages.METHOD_NOT_ALLOWED)


def test_reports_are_limited_per_address(client, bad, settings):
    settings.SHORTENER_REPORT_RATE_LIMIT = 2
    assert report(client).status_code == report(client).status_code == status.HTTP_200_OK

    refused = report(client)

    assert_shortener_error(refused, 429, any_number(messages.TOO_MANY_REPORTS))
    assert int(refused["Retry-After"]) > 0
    assert report(client, REMOTE_ADDR="192.0.2.9").status_code == status.HTTP_200_OK  # another address
    assert LinkReport.objects.count() == 3


# --- the queue in admin mode -----------------------------------------------


def test_the_queue_groups_open_reports_per_link_most_reported_first(client, admin_mode_client, bad):
    other = ShortLinkFactory(code="meh", url="https://meh.example/")
    report(client, "meh", "once")
    for reason in ("one", "two", "three"):
        report(client, reason=reason, REMOTE_ADDR=f"192.0.2.{len(reason)}")

    response = admin_mode_client.get("/s/moderation", JSON)

    assert response.status_code == status.HTTP_200_OK
    links = response.json()["links"]
    assert [(item["short"], item["reports"], item["disabled"]) for item in links] == [
        ("http://testserver/s/bad", 3, False),
        ("http://testserver/s/meh", 1, False),
    ]
    assert sorted(links[0]["reasons"]) == ["one", "three", "two"]
    assert links[1]["url"] == other.url
    page = admin_mode_client.get("/s/moderation")
    assert page.status_code == status.HTTP_200_OK
    assert b"phish.example" in page.content and b"three" in page.content


def test_the_queue_needs_admin_mode(client, alice_client, bad):
    assert_shortener_error(client.get("/s/moderation", JSON), 401, messages.LOGIN_REQUIRED)
    assert client.get("/s/moderation")["Location"].startswith("/s/login")
    assert_shortener_error(alice_client.get("/s/moderation", JSON), 403, messages.NOT_ADMIN)
    assert_shortener_error(
        alice_client.post("/s/moderation/bad", {"action": "disable", **JSON}), 403, messages.NOT_ADMIN
    )
    assert not ShortLink.objects.get(code="bad").is_disabled


def test_disabling_from_the_queue_answers_410_everywhere_and_closes_the_reports(client, admin_mode_client, bad):
    report(client)
    assert client.get("/s/bad").status_code == status.HTTP_302_FOUND

    response = admin_mode_client.post("/s/moderation/bad", {"action": "disable", **JSON})

    assert response.json() == {
        "success": True,
        "msg": messages.MODERATION_DISABLED.format(short="http://testserver/s/bad"),
    }
    assert_shortener_error(client.get("/s/bad", JSON), 410, DISABLED)
    assert_shortener_error_page(client.get("/s/bad"), 410, DISABLED)
    assert not LinkReport.objects.filter(resolved_at__isnull=True).exists()
    assert admin_mode_client.get("/s/moderation", JSON).json()["links"] == []
    assert ShortLink.objects.get(code="bad").disabled_at is not None


def test_enabling_makes_it_redirect_again(client, admin_mode_client, bad):
    reports.link_disable(link=bad)

    response = admin_mode_client.post("/s/moderation/bad", {"action": "enable"})

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/s/moderation"
    assert client.get("/s/bad")["Location"] == "https://phish.example/login"


def test_dismissing_keeps_the_link_and_empties_its_queue(client, admin_mode_client, bad):
    report(client)

    response = admin_mode_client.post("/s/moderation/bad", {"action": "dismiss", **JSON})

    assert response.json()["success"] is True
    assert client.get("/s/bad").status_code == status.HTTP_302_FOUND
    assert LinkReport.objects.get().resolved_at is not None


@pytest.mark.parametrize("action", ["", "delete", "DISABLE"])
def test_an_unknown_action_is_refused(admin_mode_client, bad, action):
    assert_shortener_error(
        admin_mode_client.post("/s/moderation/bad", {"action": action, **JSON}), 400, messages.MODERATION_ACTION_INVALID
    )
    assert not ShortLink.objects.get(code="bad").is_disabled


def test_moderating_an_unknown_code_is_404(admin_mode_client):
    assert_shortener_error(
        admin_mode_client.post("/s/moderation/nope", {"action": "disable", **JSON}),
        404,
        messages.LINK_UNKNOWN.format(short="http://testserver/s/nope"),
    )


def test_the_queue_form_needs_the_csrf_token(admin_password, user, bad):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    session = browser.session
    session["shortener_admin_until"] = 2**40
    session.save()

    assert_shortener_error_page(browser.post("/s/moderation/bad", {"action": "disable"}), 403, messages.CSRF_FAILED)
    assert not ShortLink.objects.get(code="bad").is_disabled


# --- the disabled link through the fast path -------------------------------


def test_a_cached_link_disabled_answers_410_through_the_wsgi_shortcut_without_a_query(bad):
    wsgi_request("/s/bad")  # cached by the view
    reports.link_disable(link=bad)
    wsgi_request("/s/bad")  # cached again, now disabled

    with CaptureQueriesContext(connection) as queries:
        code, _, body = wsgi_request("/s/bad", HTTP_ACCEPT="application/json")

    assert code == status.HTTP_410_GONE
    assert json.loads(body) == {"success": False, "msg": DISABLED}
    assert [query["sql"] for query in queries if "shortener_shortlink" in query["sql"]] == []


def test_stats_stay_readable_and_say_disabled(client, bad):
    reports.link_disable(link=bad)

    response = client.get("/s/stats/bad", JSON)

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["disabled"] is True


# --- export and import ------------------------------------------------------


def test_a_disabled_link_stays_disabled_through_export_and_import(alice_client, bob_client, bad):
    ShortLinkFactory(code="fine", url="https://fine.example/", owner=bad.owner, is_custom=True)
    reports.link_disable(link=bad)
    exported = alice_client.get("/s/export").getvalue()
    rows = {row["url"]: row["disabled"] for row in json.loads(exported)}
    assert rows == {"https://phish.example/login": True, "https://fine.example/": False}
    ShortLink.objects.all().delete()

    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("export.json", exported, content_type="application/json")
    response = bob_client.post("/s/import", {"file": upload, **JSON})

    assert response.json()["created"] == 2
    imported = {link.url: link.is_disabled for link in ShortLink.objects.all()}
    assert imported == {"https://phish.example/login": True, "https://fine.example/": False}


def test_the_csv_export_carries_disabled_and_its_import_keeps_it(alice_client, bob_client, bad):
    reports.link_disable(link=bad)
    exported = alice_client.get("/s/export.csv").getvalue()
    assert b",password_hash,disabled," in exported.splitlines()[0]  # after Lstu's nine columns
    ShortLink.objects.all().delete()

    from django.core.files.uploadedfile import SimpleUploadedFile

    bob_client.post("/s/import", {"file": SimpleUploadedFile("e.csv", exported, content_type="text/csv"), **JSON})

    assert ShortLink.objects.get().is_disabled


# --- the queue in the Django admin ------------------------------------------


def test_the_django_admin_lists_reported_links_grouped_with_their_count(admin_client, client, bad):
    ShortLinkFactory(code="quiet", url="https://quiet.example/")
    for number in range(3):
        report(client, reason=f"reason {number}", REMOTE_ADDR=f"192.0.2.{number}")

    response = admin_client.get("/admin/shortener/reportedlink/")

    assert response.status_code == status.HTTP_200_OK
    rows = list(response.context["cl"].result_list)
    assert [(link.code, link.open_reports_count) for link in rows] == [("bad", 3)]
    detail = admin_client.get(f"/admin/shortener/reportedlink/{bad.pk}/change/")
    assert b"reason 2" in detail.content


@pytest.mark.parametrize(("action", "disabled"), [("disable_links", True), ("dismiss_reports", False)])
def test_the_django_admin_actions_disable_or_dismiss(admin_client, client, bad, action, disabled):
    report(client)

    response = admin_client.post(
        "/admin/shortener/reportedlink/", {"action": action, "_selected_action": [bad.pk]}, follow=True
    )

    assert response.status_code == status.HTTP_200_OK
    assert ShortLink.objects.get(code="bad").is_disabled is disabled
    assert not LinkReport.objects.filter(resolved_at__isnull=True).exists()
    assert (client.get("/s/bad").status_code == status.HTTP_410_GONE) is disabled


def test_the_django_admin_enables_a_disabled_reported_link(admin_client, client, bad):
    report(client)
    bad.disabled_at = bad.created_at
    bad.save()

    admin_client.post("/admin/shortener/reportedlink/", {"action": "enable_links", "_selected_action": [bad.pk]})

    assert client.get("/s/bad").status_code == status.HTTP_302_FOUND


def test_the_reported_links_admin_is_for_staff_only(alice_client):
    assert alice_client.get("/admin/shortener/reportedlink/").status_code == status.HTTP_302_FOUND
