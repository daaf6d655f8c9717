"""The reveal of a burn-after-read paste (issue 23): it works for every reader but a known preview bot, and says why."""

import pytest
from django.test import Client
from rest_framework import status

from common.bots import is_bot, is_preview_bot
from pastes.models import Paste
from tests.pastes.factories import PasteFactory
from tests.pastes.test_robots import PEOPLE_AND_SCRIPTS, ROBOTS

pytestmark = pytest.mark.django_db

HEADLESS_CHROME = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0.0.0 Safari/537.36"
)
LIGHTHOUSE = (
    "Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/128.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse"
)
SECRET = "correct horse battery staple"


@pytest.fixture
def burning(user) -> Paste:
    return PasteFactory(owner=user, name="Wi-Fi", content=SECRET, burn_after_read=True)


def reveal(user_agent: str, paste: Paste):
    client = Client(HTTP_USER_AGENT=user_agent)
    page = client.get(f"/pastes/{paste.id}")
    assert SECRET not in page.content.decode()  # opening the link shows the Reveal button only
    assert "burns after reading: it is deleted as soon as it is read" in page.content.decode()
    return client.post(f"/pastes/{paste.id}")


@pytest.mark.parametrize("user_agent", [HEADLESS_CHROME, LIGHTHOUSE], ids=["HeadlessChrome", "Lighthouse"])
def test_headless_browsers_are_robots_but_not_preview_bots(user_agent):
    assert is_bot(user_agent)
    assert not is_preview_bot(user_agent)


@pytest.mark.parametrize("user_agent", ROBOTS.values(), ids=ROBOTS.keys())
def test_every_known_preview_agent_is_a_preview_bot(user_agent):
    assert is_preview_bot(user_agent)


@pytest.mark.parametrize(
    "user_agent", [HEADLESS_CHROME, LIGHTHOUSE, *PEOPLE_AND_SCRIPTS], ids=lambda agent: agent.split("/")[0][:20]
)
def test_the_reveal_works_for_every_reader_but_a_preview_bot(burning, user_agent):
    response = reveal(user_agent, burning)

    assert response.status_code == status.HTTP_200_OK
    assert SECRET in response.content.decode()
    assert "This paste was burned after reading" in response.content.decode()
    assert not Paste.objects.filter(pk=burning.pk).exists()


def test_the_headless_browser_still_counts_no_view_of_an_ordinary_paste(user):
    paste = PasteFactory(owner=user)

    Client(HTTP_USER_AGENT=HEADLESS_CHROME).get(f"/pastes/{paste.id}")

    paste.refresh_from_db()
    assert paste.views == 0


@pytest.mark.parametrize("robot", ["Slackbot", "Discordbot", "Googlebot"])
def test_a_preview_bot_posting_reveal_is_told_why_and_burns_nothing(burning, robot):
    response = reveal(ROBOTS[robot], burning)

    body = response.content.decode()
    assert response.status_code == status.HTTP_403_FORBIDDEN
    assert SECRET not in body
    assert "Not revealed: this request comes from a known link-preview agent or crawler" in body
    assert Paste.objects.filter(pk=burning.pk).exists()
