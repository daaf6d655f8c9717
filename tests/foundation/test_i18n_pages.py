"""The site's own pages in the reader's language (issue 48): the landing page, the error pages, the API
docs' frame, the footer's switcher and the preference kept in the account area; the APIs in English."""

import pytest
from django.conf import settings
from django.template.loader import render_to_string
from django.test import Client
from django.utils import translation
from rest_framework import status

from accounts.models import Preferences
from config.views import ERROR_PAGE_MESSAGES
from shortener.errors import STATUS_MESSAGES
from tests.i18n import untranslated

pytestmark = pytest.mark.django_db

LANGUAGES = ["fr", "de", "es"]


def page(client: Client, path: str, language: str, **headers: str):
    return client.get(path, HTTP_ACCEPT_LANGUAGE=language, **headers)


def assert_translated(client: Client, path: str, language: str, *, expected_status: int = 200, ignore=()) -> str:
    english = page(client, path, "en")
    translated = page(client, path, language)

    assert english.status_code == translated.status_code == expected_status
    html = translated.content.decode()
    assert f'<html lang="{language}">' in html
    assert untranslated(english.content.decode(), html, language, ignore=ignore) == []
    return html


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_landing_page_is_translated_for_an_anonymous_reader(client, settings, language):
    settings.ACCOUNTS_REGISTRATION = "open"  # the sentence with "create an account"

    assert_translated(client, "/", language)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_landing_page_is_translated_for_a_signed_in_reader(alice_client, language):
    html = assert_translated(alice_client, "/", language, ignore=["alice"])

    assert "<strong>alice</strong>" in html


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_not_found_page_is_translated(client, language):
    html = assert_translated(client, "/no-such-page", language, expected_status=404)

    with translation.override(language):
        assert translation.gettext("Not found.") in html


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_api_docs_frame_is_translated_and_swagger_ui_is_marked_english(alice_client, language):
    html = assert_translated(alice_client, "/api/docs/", language, ignore=["alice"])

    assert '<div id="swagger-ui" lang="en" translate="no">' in html


def test_the_error_page_messages_are_those_the_interfaces_give_it():
    assert set(ERROR_PAGE_MESSAGES) == set(STATUS_MESSAGES.values())


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("message", ERROR_PAGE_MESSAGES)
def test_every_error_page_message_is_translated(rf, language, message):
    request = rf.get("/")
    with translation.override("en"):
        english = render_to_string("error.html", {"status": 500, "message": message}, request)
    with translation.override(language):
        translated = render_to_string("error.html", {"status": 500, "message": message}, request)

    assert untranslated(english, translated, language) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_too_many_requests_page_is_translated(rf, language):
    request = rf.get("/")
    with translation.override("en"):
        english = render_to_string("429.html", {}, request)
    with translation.override(language):
        translated = render_to_string("429.html", {}, request)

    assert untranslated(english, translated, language) == []


def test_the_not_found_json_of_the_shortener_stays_english(client):
    english = client.get("/no-such-page", HTTP_ACCEPT="application/json")
    french = client.get("/no-such-page", HTTP_ACCEPT="application/json", HTTP_ACCEPT_LANGUAGE="fr")

    assert french.status_code == status.HTTP_404_NOT_FOUND
    assert french.content == english.content == b'{"success": false, "msg": "Not found."}'


@pytest.mark.parametrize("path", ["/api/v1/no-such-thing", "/pastes/paste/@nobody"])
def test_the_json_apis_answer_in_english_whatever_the_reader_asks(client, path):
    english = client.get(path)
    french = client.get(path, HTTP_ACCEPT_LANGUAGE="fr", HTTP_COOKIE=f"{settings.LANGUAGE_COOKIE_NAME}=de")

    assert french.status_code == english.status_code
    assert french.content == english.content
    assert "Accept-Language" not in french.get("Vary", "")


def test_the_api_docs_refusal_of_a_method_stays_english(client):
    english = client.post("/api/docs/")
    french = client.post("/api/docs/", HTTP_ACCEPT_LANGUAGE="fr")

    assert french.status_code == status.HTTP_405_METHOD_NOT_ALLOWED
    assert french.content == english.content


def test_every_page_has_the_switcher_in_its_footer(client):
    html = page(client, "/", "de").content.decode()

    assert '<form class="language-switcher" action="/i18n/setlang/" method="post">' in html
    assert '<label for="language-switcher">Sprache</label>' in html
    assert '<option value="de" lang="de" selected>Deutsch</option>' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert '<input type="hidden" name="next" value="/">' in html


def test_the_switcher_is_left_out_when_the_operator_keeps_one_language(client, settings):
    settings.LANGUAGES = [("en", "English")]

    assert b"language-switcher" not in client.get("/").content


def test_the_switcher_sets_the_cookie_and_brings_the_reader_back():
    client = Client(enforce_csrf_checks=True)
    token = client.get("/").cookies["csrftoken"].value

    response = client.post("/i18n/setlang/", {"language": "es", "next": "/s/", "csrfmiddlewaretoken": token})

    assert response.status_code == status.HTTP_302_FOUND
    assert response["Location"] == "/s/"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "es"
    assert '<html lang="es">' in client.get("/").content.decode()
    assert not Preferences.objects.exists()


def test_the_switcher_refuses_a_post_without_its_csrf_token():
    client = Client(enforce_csrf_checks=True)

    response = client.post("/i18n/setlang/", {"language": "es", "next": "/"})

    assert response.status_code == status.HTTP_403_FORBIDDEN
    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies


def test_a_signed_in_reader_who_switches_keeps_the_choice(alice_client, user):
    alice_client.post("/i18n/setlang/", {"language": "fr", "next": "/"})

    assert Preferences.objects.get(user=user).language == "fr"


def test_a_language_the_operator_left_out_is_not_kept(alice_client, user, settings):
    settings.LANGUAGES = [("en", "English"), ("fr", "Français")]

    alice_client.post("/i18n/setlang/", {"language": "de", "next": "/"})

    assert not Preferences.objects.filter(user=user).exists()


def test_the_browsers_choice_forgets_the_preference_and_the_cookie(alice_client, user):
    Preferences.objects.create(user=user, language="de")
    alice_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "de"

    response = alice_client.post("/i18n/setlang/", {"language": "", "next": "/accounts/profile/"})

    assert response["Location"] == "/accounts/profile/"
    assert Preferences.objects.get(user=user).language == ""
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == ""  # deleted: expired at once
    assert '<html lang="es">' in page(alice_client, "/", "es").content.decode()


def test_the_preference_wins_over_the_cookie_at_sign_in(client, user):
    Preferences.objects.create(user=user, language="es")
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"

    response = client.post("/accounts/login/", {"login": "alice", "password": "alice-password"})

    assert response.status_code == status.HTTP_302_FOUND
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "es"
    assert '<html lang="es">' in page(client, "/", "de").content.decode()


def test_the_sign_in_message_is_in_the_preferred_language(client, user):
    Preferences.objects.create(user=user, language="es")
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"

    html = client.post("/accounts/login/", {"login": "alice", "password": "alice-password"}, follow=True)

    assert '<html lang="es">' in html.content.decode()
    with translation.override("es"):
        spanish = translation.gettext("Successfully signed in as %(name)s.") % {"name": "alice"}
    assert [str(message) for message in html.context["messages"]] == [spanish]
    assert spanish != "Successfully signed in as alice."


def test_without_a_preference_sign_in_leaves_the_cookie_alone(client, user):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"

    response = client.post("/accounts/login/", {"login": "alice", "password": "alice-password"})

    assert response.status_code == status.HTTP_302_FOUND
    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies
    assert '<html lang="fr">' in client.get("/").content.decode()


def test_the_profile_page_shows_the_kept_language(alice_client, user):
    Preferences.objects.create(user=user, language="de")

    html = alice_client.get("/accounts/profile/").content.decode()

    assert '<option value="de" lang="de" selected>Deutsch</option>' in html
    assert '<option value="" selected>' not in html


def test_accept_language_decides_without_cookie_or_preference(client):
    assert '<html lang="de">' in page(client, "/", "de-AT,de;q=0.9").content.decode()
    assert '<html lang="en">' in page(client, "/", "pt-BR").content.decode()


def test_a_short_domains_pages_have_the_switcher_too(settings):
    settings.SHORTENER_DOMAINS = ["sho.rt"]
    settings.ALLOWED_HOSTS = ["testserver", "sho.rt"]
    client = Client(HTTP_HOST="sho.rt")

    html = client.get("/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    switched = client.post("/i18n/setlang/", {"language": "es", "next": "/"})

    assert '<html lang="fr">' in html
    assert '<form class="language-switcher" action="/i18n/setlang/" method="post">' in html
    assert switched.status_code == status.HTTP_302_FOUND
    assert switched.cookies[settings.LANGUAGE_COOKIE_NAME].value == "es"
