"""Several short domains (issue 46, item 2): SHORTENER_DOMAINS, a link's domain, each domain's redirects."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework import status

from shortener import messages
from shortener.fastpath import flush_visits
from shortener.models import ApiKey, ShortDomain, ShortLink
from tests.shortener.asserts import assert_shortener_error
from tests.shortener.conftest import JSON
from tests.shortener.factories import ShortLinkFactory
from tests.shortener.test_redirect_shortcut import wsgi_request

pytestmark = pytest.mark.django_db

TOO_LONG = messages.URL_TOO_LONG.format(limit=2048)
UNKNOWN_DOMAIN = "{domain} is not a short domain of this instance (domains: sho.rt, two.rt)."


@pytest.fixture
def two_domains(settings):
    settings.SHORTENER_DOMAINS = ["sho.rt", "two.rt"]
    settings.ALLOWED_HOSTS = ["testserver", "sho.rt", "two.rt"]


@pytest.fixture
def same_code_twice(two_domains):
    """The code `abc` on both domains, to two targets."""
    return (
        ShortLinkFactory(code="abc", url="https://first.example/"),
        ShortLinkFactory(code="abc", domain="two.rt", url="https://second.example/"),
    )


def shorten(client: Client, url: str, **fields: object):
    return client.post("/s/a", {"shorturl": url, **fields}, content_type="application/json")


# --- creating ---------------------------------------------------------------


def test_an_lstu_client_sending_no_domain_gets_a_link_of_the_first_domain(alice_client, two_domains):
    response = alice_client.post("/s/a", {"lsturl": "https://example.com/", "format": "json"})

    assert response.status_code == status.HTTP_200_OK
    link = ShortLink.objects.get()
    assert link.domain == ""
    body = response.json()
    assert body["short"] == f"http://sho.rt/{link.code}"
    assert body["domain"] == "sho.rt"


@pytest.mark.parametrize("given", ["two.rt", "TWO.RT", " two.rt "])
def test_the_domain_field_chooses_the_links_domain(alice_client, two_domains, given):
    response = shorten(alice_client, "https://example.com/", domain=given)

    assert response.status_code == status.HTTP_200_OK
    link = ShortLink.objects.get()
    assert link.domain == "two.rt"
    assert response.json()["short"] == f"http://two.rt/{link.code}"
    assert response.json()["domain"] == "two.rt"


def test_naming_the_first_domain_stores_it_as_the_default(alice_client, two_domains):
    shorten(alice_client, "https://example.com/", domain="sho.rt")

    assert ShortLink.objects.get().domain == ""


@pytest.mark.parametrize("given", ["elsewhere.example", "testserver", "two.rt.evil.example"])
def test_a_domain_not_in_the_list_is_refused_and_nothing_written(alice_client, two_domains, given):
    response = shorten(alice_client, "https://example.com/", domain=given)

    assert_shortener_error(response, 400, UNKNOWN_DOMAIN.format(domain=given))
    assert not ShortLink.objects.exists()


@pytest.mark.parametrize("given", [7, ["two.rt"], {"host": "two.rt"}, True])
def test_a_domain_that_is_no_string_is_refused(alice_client, two_domains, given):
    response = shorten(alice_client, "https://example.com/", domain=given)

    assert_shortener_error(response, 400, 'The field "domain" must be a string.')
    assert not ShortLink.objects.exists()


def test_an_oversized_domain_is_refused_with_a_short_message(alice_client, two_domains):
    response = shorten(alice_client, "https://example.com/", domain="a" * 5000)

    message = assert_shortener_error(response, 400, UNKNOWN_DOMAIN.format(domain="a" * 100))
    assert len(message) < 200
    assert not ShortLink.objects.exists()


def test_a_domain_on_an_instance_without_short_domains_is_refused(alice_client):
    response = shorten(alice_client, "https://example.com/", domain="sho.rt")

    assert_shortener_error(response, 400, "sho.rt is not a short domain of this instance (domains: none).")


def test_shortening_on_a_domains_host_puts_the_link_on_that_domain(user, two_domains):
    client = Client(HTTP_HOST="two.rt")
    client.force_login(user)

    response = client.post("/a", {"shorturl": "https://example.com/", "_format": "json"})

    link = ShortLink.objects.get()
    assert link.domain == "two.rt"
    assert response.json()["short"] == f"http://two.rt/{link.code}"


def test_the_same_custom_code_may_exist_once_on_each_domain(alice_client, bob_client, two_domains):
    first = shorten(alice_client, "https://a.example/", **{"shorturl-custom": "promo"})
    second = shorten(bob_client, "https://b.example/", **{"shorturl-custom": "promo", "domain": "two.rt"})
    third = shorten(bob_client, "https://c.example/", **{"shorturl-custom": "promo", "domain": "two.rt"})

    assert first.json()["short"] == "http://sho.rt/promo"
    assert second.json()["short"] == "http://two.rt/promo"
    assert_shortener_error(third, 409, messages.CUSTOM_TAKEN.format(custom="promo", url="https://c.example/"))
    assert sorted(ShortLink.objects.values_list("domain", "code", "url")) == [
        ("", "promo", "https://a.example/"),
        ("two.rt", "promo", "https://b.example/"),
    ]


def test_the_same_url_gets_one_generated_link_per_domain(alice_client, two_domains):
    shorts = [
        shorten(alice_client, "https://example.com/", **fields).json()["short"]
        for fields in ({}, {"domain": "two.rt"}, {}, {"domain": "two.rt"})
    ]

    assert shorts[0] == shorts[2] and shorts[1] == shorts[3]
    assert shorts[0].startswith("http://sho.rt/") and shorts[1].startswith("http://two.rt/")
    assert ShortLink.objects.count() == 2


def test_the_main_page_offers_the_domains_only_when_there_are_several(alice_client, two_domains, settings):
    page = alice_client.get("/s/").content.decode()
    assert '<select id="domain" name="domain">' in page
    assert '<option value="two.rt">two.rt</option>' in page

    settings.SHORTENER_DOMAINS = ["sho.rt"]
    assert 'name="domain"' not in alice_client.get("/s/").content.decode()


def test_the_form_creates_on_the_chosen_domain_and_shows_its_short_url(alice_client, two_domains):
    response = alice_client.post("/s/a", {"shorturl": "https://example.com/", "domain": "two.rt"}, follow=True)

    link = ShortLink.objects.get()
    assert link.domain == "two.rt"
    assert f"http://two.rt/{link.code}" in response.content.decode()


def test_a_refused_form_keeps_the_chosen_domain(alice_client, two_domains):
    response = alice_client.post("/s/a", {"shorturl": "not a url", "domain": "two.rt"})

    assert response.status_code == status.HTTP_400_BAD_REQUEST
    assert '<option value="two.rt" selected>' in response.content.decode()


# --- one instance, one host: Lstu's shape ---------------------------------------


def test_with_one_short_host_answers_keep_lstus_shape(alice_client, settings):
    settings.SHORTENER_HOST = "sho.rt"
    settings.ALLOWED_HOSTS = ["testserver", "sho.rt"]

    body = shorten(alice_client, "https://example.com/").json()
    code = ShortLink.objects.get().code

    assert body.keys() == {"success", "url", "short", "qrcode"}
    assert body["short"] == f"http://sho.rt/{code}"
    assert "domain" not in alice_client.get(f"/s/stats/{code}", JSON).json()


def test_shortener_domains_wins_over_shortener_host(alice_client, settings):
    settings.SHORTENER_HOST = "old.rt"
    settings.SHORTENER_DOMAINS = ["sho.rt"]
    settings.ALLOWED_HOSTS = ["testserver", "sho.rt", "old.rt"]
    ShortLinkFactory(code="abc", url="https://first.example/")

    assert Client(HTTP_HOST="sho.rt").get("/abc")["Location"] == "https://first.example/"
    # old.rt is no short domain any more: its requests are the main host's.
    assert Client(HTTP_HOST="old.rt").get("/abc").status_code == status.HTTP_404_NOT_FOUND


# --- following --------------------------------------------------------------


def test_each_domains_host_follows_its_own_link(same_code_twice):
    assert Client(HTTP_HOST="sho.rt").get("/abc")["Location"] == "https://first.example/"
    assert Client(HTTP_HOST="two.rt").get("/abc")["Location"] == "https://second.example/"


def test_the_main_hosts_prefix_follows_the_first_domain_unless_told_otherwise(client, same_code_twice):
    assert client.get("/s/abc")["Location"] == "https://first.example/"
    assert client.get("/s/abc", {"domain": "two.rt"})["Location"] == "https://second.example/"
    assert_shortener_error(
        client.get("/s/abc", {"domain": "nope.example", **JSON}), 400, UNKNOWN_DOMAIN.format(domain="nope.example")
    )


def test_a_code_of_one_domain_is_unknown_on_the_other(two_domains, client):
    ShortLinkFactory(code="only", domain="two.rt")

    response = Client(HTTP_HOST="sho.rt").get("/only", JSON)

    assert_shortener_error(response, 404, messages.LINK_UNKNOWN.format(short="http://sho.rt/only"))
    assert Client(HTTP_HOST="two.rt").get("/only").status_code == status.HTTP_302_FOUND


def test_the_shortcut_answers_each_domain_from_the_cache_without_a_query(same_code_twice):
    for host in ("sho.rt", "two.rt", "testserver"):
        path = "/s/abc" if host == "testserver" else "/abc"
        wsgi_request(path, HTTP_HOST=host, HTTP_USER_AGENT="Firefox")  # looked up by the view, then cached

    answers = {}
    with CaptureQueriesContext(connection) as queries:
        for host, path in (("sho.rt", "/abc"), ("two.rt", "/abc"), ("testserver", "/s/abc")):
            code, headers, _ = wsgi_request(path, HTTP_HOST=host, HTTP_USER_AGENT="Firefox")
            assert code == status.HTTP_302_FOUND
            assert "X-Frame-Options" not in headers  # the shortcut's answer, not the view's
            answers[host] = headers["Location"]

    assert len(queries) == 0
    assert answers == {
        "sho.rt": "https://first.example/",
        "two.rt": "https://second.example/",
        "testserver": "https://first.example/",
    }
    flush_visits()
    counters = dict(ShortLink.objects.values_list("domain", "counter"))
    assert counters == {"": 1, "two.rt": 1}  # two visits of the same visitor to the default link: one


def test_deleting_one_domains_link_leaves_the_others_in_the_cache(same_code_twice):
    _first, second = same_code_twice
    for host in ("sho.rt", "two.rt"):
        wsgi_request("/abc", HTTP_HOST=host)

    second.deleted_at = second.created_at
    second.save(update_fields=["deleted_at"])

    assert wsgi_request("/abc", HTTP_HOST="two.rt")[0] == status.HTTP_404_NOT_FOUND
    assert wsgi_request("/abc", HTTP_HOST="sho.rt")[1]["Location"] == "https://first.example/"


# --- statistics, editing, deleting -----------------------------------------------


def test_stats_of_a_code_answer_for_the_addressed_domain(client, same_code_twice):
    on_host = Client(HTTP_HOST="two.rt").get("/stats/abc", JSON).json()
    on_main = client.get("/s/stats/abc", {"domain": "two.rt", **JSON}).json()
    default = client.get("/s/stats/abc", JSON).json()

    assert on_host["url"] == on_main["url"] == "https://second.example/"
    assert on_host["short"] == on_main["short"] == "http://two.rt/abc"
    assert on_host["domain"] == on_main["domain"] == "two.rt"
    assert (default["url"], default["short"], default["domain"]) == (
        "https://first.example/",
        "http://sho.rt/abc",
        "sho.rt",
    )


def test_own_stats_list_each_links_short_url_on_its_domain(alice_client, user, two_domains):
    ShortLinkFactory(owner=user, code="abc", url="https://first.example/")
    ShortLinkFactory(owner=user, code="abc", domain="two.rt", url="https://second.example/")

    items = alice_client.get("/s/stats", JSON).json()
    page = alice_client.get("/s/stats").content.decode()

    assert sorted((item["short"], item["domain"]) for item in items) == [
        ("http://sho.rt/abc", "sho.rt"),
        ("http://two.rt/abc", "two.rt"),
    ]
    assert 'href="/s/stats/abc?domain=two.rt"' in page
    assert 'href="/s/edit/abc?domain=two.rt"' in page
    assert 'href="/s/stats/abc"' in page


def test_editing_and_deleting_address_the_named_domains_link(alice_client, user, two_domains):
    first = ShortLinkFactory(owner=user, code="abc", url="https://first.example/")
    second = ShortLinkFactory(owner=user, code="abc", domain="two.rt", url="https://second.example/")

    edited = alice_client.patch(
        "/s/edit/abc?domain=two.rt", {"url": "https://changed.example/"}, content_type="application/json"
    )
    page = alice_client.get("/s/edit/abc?domain=two.rt").content.decode()
    deleted = alice_client.post("/s/d/abc?domain=two.rt", JSON)

    assert edited.json()["short"] == "http://two.rt/abc"
    assert 'action="/s/edit/abc?domain=two.rt"' in page
    assert deleted.json() == {"success": True, "url": "https://changed.example/", "short": "http://two.rt/abc"}
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.url, first.deleted_at) == ("https://first.example/", None)
    assert second.url == "https://changed.example/" and second.deleted_at is not None


def test_the_qr_download_encodes_the_links_own_domain(client, same_code_twice):
    response = client.get("/s/qr/abc.svg", {"domain": "two.rt"})

    assert response.status_code == status.HTTP_200_OK
    assert b"QR code of http://two.rt/abc" not in response.content  # a file, not the page's SVG
    assert response["Content-Disposition"] == 'attachment; filename="abc-qr-512.svg"'


# --- export and import ------------------------------------------------------


def test_the_export_carries_each_links_domain_and_short_url(alice_client, user, two_domains):
    ShortLinkFactory(owner=user, code="abc", url="https://first.example/", is_custom=True)
    ShortLinkFactory(owner=user, code="abc", domain="two.rt", url="https://second.example/", is_custom=True)

    rows = json.loads(alice_client.get("/s/export").getvalue())
    csv_lines = alice_client.get("/s/export.csv").getvalue().decode().splitlines()

    assert [(row["domain"], row["short"]) for row in rows] == [
        ("", "http://sho.rt/abc"),
        ("two.rt", "http://two.rt/abc"),
    ]
    assert csv_lines[0].endswith(",preview_image,domain")  # the last column
    assert csv_lines[2].endswith(",two.rt")


def test_an_export_imports_back_onto_the_same_domains(alice_client, bob_client, user, two_domains):
    ShortLinkFactory(owner=user, code="abc", url="https://first.example/", is_custom=True)
    ShortLinkFactory(owner=user, code="xyz", domain="two.rt", url="https://second.example/", is_custom=True)
    exported = alice_client.get("/s/export").getvalue()
    ShortLink.objects.all().delete()

    response = bob_client.post("/s/import", {"file": _upload(exported), **JSON})

    assert response.json()["created"] == 2
    assert [line["short"] for line in response.json()["lines"]] == ["http://sho.rt/abc", "http://two.rt/xyz"]
    assert sorted(ShortLink.objects.values_list("domain", "code")) == [("", "abc"), ("two.rt", "xyz")]


def test_an_import_line_on_an_unknown_domain_refuses_only_itself(alice_client, two_domains):
    lines = [{"url": "https://a.example/", "domain": "gone.example"}, {"url": "https://b.example/", "domain": "two.rt"}]

    response = alice_client.post("/s/import", {"file": _upload(json.dumps(lines).encode()), **JSON})

    body = response.json()
    assert (body["created"], body["refused"]) == (1, 1)
    assert body["lines"][0] == {"line": 1, "status": "refused", "msg": UNKNOWN_DOMAIN.format(domain="gone.example")}
    assert list(ShortLink.objects.values_list("domain", "url")) == [("two.rt", "https://b.example/")]


def test_a_csv_export_from_before_domains_still_imports(alice_client, two_domains):
    old = b"url,custom,short,counter,created_at,expires_at,max_visits,tags,password_hash\n"
    old += b"https://a.example/,mine,http://x/s/mine,3,1700000000,,,work,\n"

    response = alice_client.post("/s/import", {"file": _upload(old), **JSON})

    assert response.json()["created"] == 1
    link = ShortLink.objects.get()
    assert (link.domain, link.code, [tag.name for tag in link.tags.all()]) == ("", "mine", ["work"])


def _upload(content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile("links.json", content)


# --- each domain's root and not-found redirects ----------------------------------


@pytest.fixture
def second_domain_redirects(two_domains):
    return ShortDomain.objects.create(
        domain="two.rt", root_redirect="https://home.example/", not_found_redirect="https://missing.example/"
    )


def test_a_domains_root_sends_browsers_to_its_root_redirect(second_domain_redirects):
    browser = Client(HTTP_HOST="two.rt")

    assert browser.get("/")["Location"] == "https://home.example/"
    assert browser.get("/", JSON).json()["success"] is True  # JSON clients keep Lstu's answer
    assert Client(HTTP_HOST="sho.rt").get("/").status_code == status.HTTP_200_OK  # nothing set for it
    assert Client().get("/s/").status_code == status.HTTP_200_OK


@pytest.mark.parametrize("state", ["unknown", "deleted", "expired"])
def test_a_code_a_domain_cannot_follow_sends_browsers_to_its_not_found_redirect(second_domain_redirects, state):
    if state == "deleted":
        ShortLinkFactory(code="nothere", domain="two.rt", deleted_at="2026-01-01T00:00Z")
    elif state == "expired":
        ShortLinkFactory(code="nothere", domain="two.rt", expires_at="2026-01-01T00:00Z")

    response = Client(HTTP_HOST="two.rt").get("/nothere")

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "https://missing.example/"


def test_the_not_found_redirect_is_only_for_browsers_on_the_domains_host(client, second_domain_redirects):
    json_answer = Client(HTTP_HOST="two.rt").get("/nothere", JSON)
    on_main_host = client.get("/s/nothere", {"domain": "two.rt"})
    other_domain = Client(HTTP_HOST="sho.rt").get("/nothere")

    assert_shortener_error(json_answer, 404, messages.LINK_UNKNOWN.format(short="http://two.rt/nothere"))
    assert on_main_host.status_code == status.HTTP_404_NOT_FOUND
    assert other_domain.status_code == status.HTTP_404_NOT_FOUND


# --- admins set them --------------------------------------------------------


def test_admin_mode_lists_and_sets_each_domains_redirects(admin_mode_client, two_domains):
    before = admin_mode_client.get("/s/domains", JSON).json()
    saved = admin_mode_client.post(
        "/s/domains",
        {"domain": "two.rt", "root_redirect": "https://home.example/", "not_found_redirect": ""},
        content_type="application/json",
    )

    assert before == {
        "success": True,
        "domains": [
            {"domain": "sho.rt", "root_redirect": "", "not_found_redirect": ""},
            {"domain": "two.rt", "root_redirect": "", "not_found_redirect": ""},
        ],
    }
    assert saved.json()["msg"] == "The redirects of two.rt are saved."
    assert list(ShortDomain.objects.values_list("domain", "root_redirect", "not_found_redirect")) == [
        ("two.rt", "https://home.example/", "")
    ]
    assert Client(HTTP_HOST="two.rt").get("/")["Location"] == "https://home.example/"


def test_the_domains_page_saves_with_its_form(admin_mode_client, two_domains):
    page = admin_mode_client.get("/s/domains")
    response = admin_mode_client.post(
        "/s/domains", {"domain": "sho.rt", "root_redirect": "", "not_found_redirect": "https://missing.example/"}
    )

    assert page.status_code == status.HTTP_200_OK
    assert 'name="not_found_redirect"' in page.content.decode()
    assert response.status_code == status.HTTP_302_FOUND
    assert ShortDomain.objects.get().domain == ""  # the default domain, stored as its links are
    assert Client(HTTP_HOST="sho.rt").get("/nothere")["Location"] == "https://missing.example/"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"root_redirect": "https://home.example/"}, messages.DOMAIN_MISSING),
        ({"domain": "nope.example"}, UNKNOWN_DOMAIN.format(domain="nope.example")),
        ({"domain": "two.rt", "root_redirect": "javascript:alert(1)"}, "javascript:alert(1) is not a valid URL."),
        ({"domain": "two.rt", "not_found_redirect": 3}, 'The field "not_found_redirect" must be a string.'),
        (
            {"domain": "two.rt", "root_redirect": "https://x.example/" + "a" * 3000},
            messages.URL_TOO_LONG.format(limit=2048),
        ),
    ],
)
def test_bad_redirects_are_refused_and_nothing_saved(admin_mode_client, two_domains, fields, message):
    response = admin_mode_client.post("/s/domains", fields, content_type="application/json")

    assert_shortener_error(response, 400, message)
    assert not ShortDomain.objects.exists()


def test_malformed_json_is_refused(admin_mode_client, two_domains):
    response = admin_mode_client.post("/s/domains", "{not json", content_type="application/json")

    assert_shortener_error(response, 400, messages.BAD_JSON)


def test_a_refused_form_shows_the_page_with_the_message(admin_mode_client, two_domains):
    response = admin_mode_client.post("/s/domains", {"domain": "two.rt", "root_redirect": "nope"})

    assert response.status_code == status.HTTP_400_BAD_REQUEST
    assert "nope is not a valid URL." in response.content.decode()
    assert not ShortDomain.objects.exists()


def test_only_admin_mode_sees_or_sets_the_domains(client, alice_client, two_domains, admin_password):
    for who in (alice_client, client):
        for response in (
            who.get("/s/domains", JSON),
            who.post("/s/domains", {"domain": "two.rt", "root_redirect": "https://x.example/", **JSON}),
        ):
            if who is client:
                assert_shortener_error(response, 401, messages.LOGIN_REQUIRED)
            else:
                assert_shortener_error(response, 403, messages.NOT_ADMIN)
    assert client.get("/s/domains")["Location"].startswith("/s/login")
    assert not ShortDomain.objects.exists()


def test_an_api_token_cannot_set_the_domains(user, two_domains, admin_password):
    _api_key, raw_key = ApiKey.issue(user=user, name="bot")

    response = Client().post(
        "/s/domains", {"domain": "two.rt"}, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {raw_key}"
    )

    assert_shortener_error(response, 401, messages.LOGIN_REQUIRED)  # a token opens no admin page
    assert not ShortDomain.objects.exists()


def test_the_django_admin_sets_a_domains_redirects(admin_client, two_domains):
    page = admin_client.get("/admin/shortener/shortdomain/add/")
    response = admin_client.post(
        "/admin/shortener/shortdomain/add/",
        {"domain": "two.rt", "root_redirect": "https://home.example/", "not_found_redirect": ""},
    )
    refused = admin_client.post("/admin/shortener/shortdomain/add/", {"domain": "nope.example"})

    assert '<option value="two.rt">two.rt</option>' in page.content.decode()
    assert response.status_code == status.HTTP_302_FOUND
    assert refused.status_code == status.HTTP_200_OK  # the form again, with its error
    assert list(ShortDomain.objects.values_list("domain", "root_redirect")) == [("two.rt", "https://home.example/")]
