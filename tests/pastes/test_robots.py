"""Crawlers and link-preview agents never burn or count a paste, through any route (issue 14, item 4)."""

import pytest
from django.test import Client
from rest_framework import status

from common.bots import is_bot
from pastes.errors import PasteNotFound
from pastes.models import Paste
from tests.pastes.asserts import assert_pastes_error
from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db

# Real User-Agents of the agents that fetch a link as soon as it is posted.
ROBOTS = {
    "Slackbot": "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
    "Twitterbot": "Twitterbot/1.0",
    "facebookexternalhit": "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    "Discordbot": "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
    "TelegramBot": "TelegramBot (like TwitterBot)",
    "WhatsApp": "WhatsApp/2.23.20.0 A",
    "LinkedInBot": "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
    "Googlebot": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "bingbot": "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "Mastodon": "Mastodon/4.3.0 (http.rb/5.2.0; +https://mastodon.social/)",
    "Teams": "Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5 skype-url-preview@microsoft.com",
    "Mattermost": "mattermost-10.5.0",
    "Bluesky": "Mozilla/5.0 (compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app)",
}
PEOPLE_AND_SCRIPTS = [
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
    "curl/8.5.0",
    "python-requests/2.32.3",
    "Mozilla/5.0 (Linux; Android 12; CUBOT P80) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36",
]


@pytest.mark.parametrize("user_agent", ROBOTS.values(), ids=ROBOTS.keys())
def test_known_robots_are_recognised(user_agent):
    assert is_bot(user_agent)


@pytest.mark.parametrize("user_agent", PEOPLE_AND_SCRIPTS)
def test_browsers_and_api_clients_are_not_robots(user_agent):
    assert not is_bot(user_agent)


@pytest.fixture
def burning(user) -> Paste:
    return PasteFactory(owner=user, burn_after_read=True, content="for your eyes only")


ROUTES = {
    "api": lambda paste: f"/pastes/paste/@{paste.id}",
    "raw": lambda paste: f"/pastes/paste/@{paste.id}/raw",
    "page": lambda paste: f"/pastes/{paste.id}",
}


@pytest.mark.parametrize("route", ROUTES, ids=ROUTES.keys())
@pytest.mark.parametrize("robot", ROBOTS.values(), ids=ROBOTS.keys())
def test_a_robot_never_burns_nor_sees_a_burn_after_read_paste(burning, route, robot):
    client = Client(HTTP_USER_AGENT=robot)

    response = client.get(ROUTES[route](burning))

    assert "for your eyes only" not in response.content.decode()
    burning.refresh_from_db()
    assert burning.views == 0
    if route == "page":
        # The page without the content, which is what a link preview shows.
        assert response.status_code == status.HTTP_200_OK
        assert burning.name in response.content.decode()
    else:
        assert_pastes_error(response, 404, PasteNotFound.message)


def test_a_robot_pressing_reveal_burns_nothing(burning):
    client = Client(HTTP_USER_AGENT=ROBOTS["Slackbot"])

    response = client.post(f"/pastes/{burning.id}")

    assert "for your eyes only" not in response.content.decode()
    assert Paste.objects.filter(pk=burning.pk).exists()


@pytest.mark.parametrize("route", ROUTES, ids=ROUTES.keys())
def test_a_robot_reads_an_ordinary_paste_without_counting_it(paste, route):
    client = Client(HTTP_USER_AGENT=ROBOTS["Googlebot"])

    response = client.get(ROUTES[route](paste))

    assert response.status_code == status.HTTP_200_OK
    assert paste.content in response.content.decode()
    paste.refresh_from_db()
    assert paste.views == 0


@pytest.mark.parametrize("route", ["api", "raw"])
def test_after_a_preview_the_person_still_gets_the_paste_once(burning, route):
    Client(HTTP_USER_AGENT=ROBOTS["Slackbot"]).get(ROUTES[route](burning))
    person = Client(HTTP_USER_AGENT=PEOPLE_AND_SCRIPTS[0])

    first = person.get(ROUTES[route](burning))
    second = person.get(ROUTES[route](burning))

    assert first.status_code == status.HTTP_200_OK
    assert "for your eyes only" in first.content.decode()
    assert_pastes_error(second, 404, PasteNotFound.message)
    assert not Paste.objects.filter(pk=burning.pk).exists()


def test_a_robot_with_the_owners_key_reads_the_owners_paste(burning, owner_key):
    client = Client(HTTP_USER_AGENT=ROBOTS["Googlebot"], HTTP_AUTHORIZATION=owner_key)

    response = client.get(ROUTES["api"](burning))

    assert response.status_code == status.HTTP_200_OK
    assert response.json()["content"] == "for your eyes only"
    assert Paste.objects.filter(pk=burning.pk).exists()
