"""The HTML page of a paste, /pastes/<id> (issue 14, item 4)."""

from datetime import timedelta
from html import escape

import pytest
from django.test import Client
from django.utils import timezone
from django.utils.formats import date_format
from rest_framework import status

from pastes.models import Paste
from pastes.pages import NOT_FOUND
from tests.pastes.asserts import assert_pastes_error, assert_pastes_error_page
from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db

CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36"


@pytest.fixture
def browser_client() -> Client:
    return Client(HTTP_USER_AGENT=CHROME)


@pytest.fixture
def owner_browser(user) -> Client:
    client = Client(HTTP_USER_AGENT=CHROME)
    client.force_login(user)
    return client


@pytest.fixture
def other_browser(other_user) -> Client:
    client = Client(HTTP_USER_AGENT=CHROME)
    client.force_login(other_user)
    return client


def page_url(paste: Paste) -> str:
    return f"/pastes/{paste.id}"


def test_public_paste_page_is_highlighted_with_line_numbers_and_counts_a_view(browser_client, user):
    paste = PasteFactory(owner=user, content="import os\nprint(os.getcwd())\n", name="cwd")

    response = browser_client.get(page_url(paste))

    assert response.status_code == status.HTTP_200_OK
    html = response.content.decode()
    assert '<span class="kn">import</span>' in html
    assert 'href="#L-2">2</a>' in html
    assert '<dd data-testid="language">Python</dd>' in html
    assert f'href="/pastes/paste/@{paste.id}/raw"' in html
    assert "no-store" in response["Cache-Control"]
    paste.refresh_from_db()
    assert paste.views == 1


def test_the_syntax_field_wins_over_the_guess(browser_client, user):
    paste = PasteFactory(owner=user, content="Hello, world!", syntax="bash")

    response = browser_client.get(page_url(paste))

    assert '<dd data-testid="language">Bash</dd>' in response.content.decode()


def test_unrecognised_content_is_shown_as_plain_text(browser_client, user):
    paste = PasteFactory(owner=user, content="Shopping list: eggs, milk, bread.")

    html = browser_client.get(page_url(paste)).content.decode()

    assert '<dd data-testid="language">Plain text</dd>' in html


@pytest.mark.parametrize("syntax", ["", "text", "html"])
def test_content_is_escaped_whatever_the_language(browser_client, user, syntax):
    paste = PasteFactory(owner=user, content="Hello <script>alert(1)</script> world", syntax=syntax)

    html = browser_client.get(page_url(paste)).content.decode()

    assert "alert(1)" in html
    assert "<script>alert(1)" not in html


def test_page_shows_when_the_paste_expires(browser_client, user):
    paste = PasteFactory(
        owner=user, expiration=Paste.Expiration.ONE_DAY, expires_at=timezone.now() + timedelta(days=1, minutes=1)
    )

    html = browser_client.get(page_url(paste)).content.decode()

    assert "in 1\xa0day" in html
    assert f'<time datetime="{paste.expires_at.isoformat()}" data-local>' in html
    assert date_format(paste.expires_at, "DATETIME_FORMAT") + " UTC" in html  # the reader's format (issue 48)


def test_a_paste_that_never_expires_says_so(browser_client, paste):
    html = browser_client.get(page_url(paste)).content.decode()

    assert '<dd data-testid="expiry">Never</dd>' in html


def test_unlisted_paste_has_a_page(browser_client, user):
    paste = PasteFactory(owner=user, exposure=Paste.Exposure.UNLISTED)

    response = browser_client.get(page_url(paste))

    assert response.status_code == status.HTTP_200_OK
    assert escape(paste.content) in response.content.decode()


def test_private_paste_is_an_html_404_to_others_and_anonymous(browser_client, other_browser, user):
    paste = PasteFactory(owner=user, exposure=Paste.Exposure.PRIVATE, content="secret text")

    for client in (browser_client, other_browser):
        response = client.get(page_url(paste))

        assert_pastes_error_page(response, 404, NOT_FOUND)
        assert "secret text" not in response.content.decode()


def test_private_paste_is_shown_to_its_signed_in_owner_without_counting(owner_browser, user):
    paste = PasteFactory(owner=user, exposure=Paste.Exposure.PRIVATE, content="secret text")

    response = owner_browser.get(page_url(paste))

    assert response.status_code == status.HTTP_200_OK
    assert "secret text" in response.content.decode()
    paste.refresh_from_db()
    assert paste.views == 0


def test_expired_paste_is_a_404_and_deleted(browser_client, user):
    paste = PasteFactory(
        owner=user, expiration=Paste.Expiration.ONE_HOUR, expires_at=timezone.now() - timedelta(seconds=1)
    )

    response = browser_client.get(page_url(paste))

    assert_pastes_error_page(response, 404, NOT_FOUND)
    assert not Paste.objects.filter(pk=paste.pk).exists()


def test_unknown_id_is_the_not_found_page(browser_client):
    response = browser_client.get("/pastes/AAAAAAAAAAAA")

    assert_pastes_error_page(response, 404, NOT_FOUND)


@pytest.mark.parametrize("path", ["/pastes/short", "/pastes/AAAAAAAAAAAA!"])
def test_malformed_ids_are_not_found(browser_client, path):
    response = browser_client.get(path)

    # No paste page matches, so the prefix's own answer for an unknown URL.
    assert_pastes_error(response, 404, "Not found.")


def test_head_neither_counts_nor_sends_a_body(browser_client, paste):
    response = browser_client.head(page_url(paste))

    assert response.status_code == status.HTTP_200_OK
    assert response.content == b""
    paste.refresh_from_db()
    assert paste.views == 0


def test_the_api_path_stays_json_for_browsers(browser_client, paste):
    response = browser_client.get(f"/pastes/paste/@{paste.id}", HTTP_ACCEPT="text/html")

    assert response["Content-Type"] == "application/json"
    assert response.json()["content"] == paste.content


def test_other_methods_are_refused(browser_client, paste):
    assert browser_client.delete(page_url(paste)).status_code == status.HTTP_405_METHOD_NOT_ALLOWED
    assert Paste.objects.filter(pk=paste.pk).exists()


def test_post_to_an_ordinary_paste_goes_back_to_its_page(browser_client, paste):
    response = browser_client.post(page_url(paste))

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == page_url(paste)


# Burn after read: a reveal button first.


@pytest.fixture
def burning(user) -> Paste:
    return PasteFactory(owner=user, burn_after_read=True, content="the launch code is 0000")


def test_burn_after_read_paste_shows_a_reveal_button_and_burns_nothing(browser_client, burning):
    response = browser_client.get(page_url(burning))

    assert response.status_code == status.HTTP_200_OK
    html = response.content.decode()
    assert "the launch code" not in html
    assert '<button type="submit">Reveal</button>' in html
    assert 'name="csrfmiddlewaretoken"' in html
    burning.refresh_from_db()
    assert burning.views == 0


def test_reveal_shows_the_content_once_and_burns_the_paste(browser_client, burning):
    response = browser_client.post(page_url(burning))

    assert response.status_code == status.HTTP_200_OK
    html = response.content.decode()
    assert "the launch code is 0000" in html
    assert "This paste was burned after reading" in html
    assert not Paste.objects.filter(pk=burning.pk).exists()
    assert_pastes_error_page(browser_client.get(page_url(burning)), 404, NOT_FOUND)
    assert_pastes_error_page(browser_client.post(page_url(burning)), 404, NOT_FOUND)


def test_reveal_needs_the_csrf_token(burning):
    client = Client(enforce_csrf_checks=True, HTTP_USER_AGENT=CHROME)

    response = client.post(page_url(burning))

    assert response.status_code == status.HTTP_403_FORBIDDEN
    assert Paste.objects.filter(pk=burning.pk).exists()


def test_reveal_with_the_token_from_the_page_burns(burning):
    client = Client(enforce_csrf_checks=True, HTTP_USER_AGENT=CHROME)
    client.get(page_url(burning))

    response = client.post(page_url(burning), {"csrfmiddlewaretoken": client.cookies["csrftoken"].value})

    assert response.status_code == status.HTTP_200_OK
    assert not Paste.objects.filter(pk=burning.pk).exists()


def test_the_owner_reads_their_burn_after_read_paste_without_burning_it(owner_browser, burning):
    response = owner_browser.get(page_url(burning))

    assert "the launch code is 0000" in response.content.decode()
    assert Paste.objects.filter(pk=burning.pk).exists()
