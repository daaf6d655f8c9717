"""Link previews (issue 46): fetched once through the guarded fetcher, editable, shown to preview robots."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from rest_framework import status

from shortener.fastpath import flush_visits
from shortener.models import ShortLink, VisitBreakdown
from shortener.previews import fetch_link_preview, read_preview
from tests.shortener.factories import ShortLinkFactory
from tests.shortener.test_redirect_shortcut import wsgi_request

pytestmark = pytest.mark.django_db

TWITTERBOT = "Twitterbot/1.0"
SLACKBOT = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"

PAGES = {
    "/article": (
        "text/html; charset=utf-8",
        b"""<!doctype html><html><head><title>Plain title</title>
        <meta property="og:title" content="The  article &amp; more">
        <meta name="description" content="Plain description">
        <meta property="og:description" content="What it is about">
        <meta property="og:image" content="/img/card.png">
        </head><body>Hello</body></html>""",
    ),
    "/plain": ("text/html", b"<html><head><title> Only a title </title></head><body></body></html>"),
    "/image.png": ("image/png", b"\x89PNG\r\n"),
}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        page = PAGES.get(self.path)
        if page is None:
            self.send_response(404)
            self.end_headers()
            return
        content_type, body = page
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def local_site(site, settings):
    """The local site, which the guarded fetcher refuses unless private networks are allowed (as A's tests do)."""
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = True
    return site


def test_the_preview_is_read_from_the_pages_open_graph_tags(local_site):
    link = ShortLinkFactory(url=f"{local_site}/article")

    assert fetch_link_preview.call(link.pk) is True

    link.refresh_from_db()
    assert link.preview_title == "The article & more"
    assert link.preview_description == "What it is about"
    assert link.preview_image == f"{local_site}/img/card.png"


def test_a_page_without_tags_gives_its_title(local_site):
    link = ShortLinkFactory(url=f"{local_site}/plain")

    fetch_link_preview.call(link.pk)

    link.refresh_from_db()
    assert (link.preview_title, link.preview_description, link.preview_image) == ("Only a title", "", "")


@pytest.mark.parametrize("path", ["/image.png", "/missing"])
def test_no_preview_from_a_page_that_is_not_html_or_not_there(local_site, path):
    link = ShortLinkFactory(url=f"{local_site}{path}")

    assert fetch_link_preview.call(link.pk) is False

    link.refresh_from_db()
    assert (link.preview_title, link.preview_description, link.preview_image) == ("", "", "")


def test_a_private_address_is_never_fetched(site, settings):
    settings.REPORTS_ALLOW_PRIVATE_NETWORKS = False  # the default: the guard refuses 127.0.0.1
    link = ShortLinkFactory(url=f"{site}/article")

    assert fetch_link_preview.call(link.pk) is False

    link.refresh_from_db()
    assert link.preview_title == ""


def test_the_owners_preview_is_never_overwritten(local_site):
    link = ShortLinkFactory(url=f"{local_site}/article", preview_title="Mine")

    assert fetch_link_preview.call(link.pk) is False

    link.refresh_from_db()
    assert (link.preview_title, link.preview_description) == ("Mine", "")


def test_creating_a_link_fetches_its_preview_on_the_task_queue(
    alice_client, local_site, settings, django_capture_on_commit_callbacks
):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = alice_client.post("/s/a", {"shorturl": f"{local_site}/article", "_format": "json"})

    assert response.status_code == status.HTTP_200_OK
    assert len(callbacks) == 1
    assert ShortLink.objects.get().preview_title == "The article & more"


def test_previews_can_be_switched_off(alice_client, local_site, settings, django_capture_on_commit_callbacks):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    settings.SHORTENER_LINK_PREVIEWS = False

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        alice_client.post("/s/a", {"shorturl": f"{local_site}/article", "_format": "json"})

    assert callbacks == []
    assert ShortLink.objects.get().preview_title == ""


def test_read_preview_drops_an_image_that_is_not_http():
    preview = read_preview('<meta property="og:image" content="javascript:alert(1)">', "https://a.example/")

    assert preview["preview_image"] == ""


# --- What a preview robot gets ---------------------------------------------------------------------


@pytest.fixture
def previewed():
    return ShortLinkFactory(
        code="abc",
        url="https://example.com/target",
        preview_title='Title "quoted" <b>',
        preview_description="About it",
        preview_image="https://example.com/card.png",
    )


@pytest.mark.parametrize("user_agent", [TWITTERBOT, SLACKBOT])
def test_a_preview_robot_gets_the_card_page_and_counts_as_a_robot(previewed, user_agent):
    for _ in range(2):  # the view, then again once the link is cached (the shortcut hands it on)
        code, headers, body = wsgi_request("/s/abc", HTTP_USER_AGENT=user_agent)
        assert code == status.HTTP_200_OK
        assert headers["Content-Type"].startswith("text/html")
        page = body.decode()
        assert '<meta property="og:title" content="Title &quot;quoted&quot; &lt;b&gt;">' in page
        assert '<meta property="og:description" content="About it">' in page
        assert '<meta property="og:image" content="https://example.com/card.png">' in page
        assert '<meta name="twitter:card" content="summary_large_image">' in page
        assert '<meta http-equiv="refresh" content="0; url=https://example.com/target">' in page
    flush_visits()

    previewed.refresh_from_db()
    assert previewed.counter == 0
    assert VisitBreakdown.objects.get(link=previewed, dimension="bots").visits == 2


def test_a_person_is_redirected_as_before(previewed):
    for _ in range(2):
        code, headers, _ = wsgi_request("/s/abc", HTTP_USER_AGENT=FIREFOX)
        assert (code, headers["Location"]) == (302, "https://example.com/target")
    flush_visits()

    previewed.refresh_from_db()
    assert previewed.counter == 1


def test_a_robot_following_a_link_without_preview_is_redirected():
    ShortLinkFactory(code="abc", url="https://example.com/target")

    code, headers, _ = wsgi_request("/s/abc", HTTP_USER_AGENT=TWITTERBOT)

    assert (code, headers["Location"]) == (302, "https://example.com/target")


def test_the_card_page_refreshes_to_the_rules_target(previewed):
    previewed.rules = [{"when": {"query": {"app": None}}, "url": "https://app.example/"}]
    previewed.save()

    _, _, body = wsgi_request("/s/abc?app", HTTP_USER_AGENT=TWITTERBOT)

    assert '<meta http-equiv="refresh" content="0; url=https://app.example/">' in body.decode()


# --- Editing it -------------------------------------------------------------------------------------


def test_the_owner_edits_the_preview(alice_client, user):
    link = ShortLinkFactory(code="abc", owner=user)

    response = alice_client.patch(
        "/s/edit/abc",
        {"preview_title": "New  title", "preview_description": "", "preview_image": "https://img.example/a.png"},
        content_type="application/json",
    )

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["preview"] == {"title": "New title", "description": "", "image": "https://img.example/a.png"}
    link.refresh_from_db()
    assert (link.preview_title, link.preview_image) == ("New title", "https://img.example/a.png")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("preview_title", "x" * 301, 'The field "preview_title" is too long: 300 characters at most.'),
        ("preview_description", "x" * 1001, 'The field "preview_description" is too long: 1000 characters at most.'),
        ("preview_image", "javascript:alert(1)", "The preview image must be an http(s) URL."),
        ("preview_image", "https://a.example/" + "x" * 2048, 'The field "preview_image" is too long'),
    ],
)
def test_a_bad_preview_is_refused_and_nothing_changes(alice_client, user, field, value, message):
    link = ShortLinkFactory(code="abc", owner=user, preview_title="Kept")

    response = alice_client.patch("/s/edit/abc", {field: value}, content_type="application/json")

    assert response.status_code == status.HTTP_400_BAD_REQUEST
    assert response.json()["msg"].startswith(message)
    link.refresh_from_db()
    assert (link.preview_title, link.preview_description, link.preview_image) == ("Kept", "", "")


def test_someone_else_cannot_edit_the_preview(bob_client, user):
    ShortLinkFactory(code="abc", owner=user)

    response = bob_client.patch("/s/edit/abc", {"preview_title": "Spam"}, content_type="application/json")

    assert response.status_code == status.HTTP_403_FORBIDDEN
    assert ShortLink.objects.get().preview_title == ""


def test_the_edit_page_form_saves_the_preview_and_options(alice_client, user):
    link = ShortLinkFactory(code="abc", owner=user, url="https://example.com/", forward_query=True)

    page = alice_client.get("/s/edit/abc")
    assert page.status_code == status.HTTP_200_OK
    assert 'name="preview_title"' in page.content.decode()

    response = alice_client.post(
        "/s/edit/abc",
        {
            "url": "https://example.com/",
            "forward_query": "0",  # the checkbox left unticked: only its hidden field
            "forward_path": ["0", "1"],  # ticked
            "redirect_status": "307",
            "preview_title": "Card",
            "preview_description": "",
            "preview_image": "",
        },
    )

    assert response.status_code == status.HTTP_302_FOUND
    link.refresh_from_db()
    assert (link.forward_query, link.forward_path, link.redirect_status, link.preview_title) == (
        False,
        True,
        307,
        "Card",
    )
