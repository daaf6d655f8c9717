"""The account area's longest words on a 390 px phone (issue 48): the keys' and sessions' tables, where each
row becomes a block of labelled lines, keep their German and French labels inside their lines and their
written-out dates (Spanish: "28 de noviembre de 2026 a las 19:39") inside the screen."""

from datetime import timedelta

import pytest
from allauth.usersessions.models import UserSession
from django.utils import timezone

from pastes.models import ApiKey as PastesKey
from reports.models import ApiKey as ReportsKey
from tests.browser import PHONE, overflow, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Cells whose label runs out of them (a wrapped label over the next line) are taller inside than out.
LABELS_OUT_OF_THEIR_CELLS = """(selector) => [...document.querySelectorAll(selector)]
  .filter((cell) => cell.scrollHeight > cell.clientHeight + 1)
  .map((cell) => cell.dataset.label)"""


SESSIONS_TITLE = {"de-DE": "Angemeldete Sitzungen", "fr-FR": "Sessions ouvertes", "es-ES": "Sesiones iniciadas"}


@pytest.mark.parametrize("locale", SESSIONS_TITLE)
def test_the_keys_and_sessions_tables_on_a_phone(browser, live_server, user, locale):
    ReportsKey.issue(user=user, name="ci pipeline", expires_at=timezone.now() + timedelta(days=30))
    PastesKey.issue(user=user, name="editor", scope="read")
    UserSession.objects.create(user=user, ip="192.0.2.7", session_key="elsewhere", user_agent="curl/8.5.0")
    context = browser.new_context(viewport=PHONE, locale=locale)
    sign_in(context, live_server, user)
    page = context.new_page()

    page.goto(f"{live_server.url}/accounts/keys/")
    keys = page.evaluate(LABELS_OUT_OF_THEIR_CELLS, ".keys-table td")
    keys_overflow = overflow(page)
    page.goto(f"{live_server.url}/accounts/sessions/")
    sessions = page.evaluate(LABELS_OUT_OF_THEIR_CELLS, ".sessions-table td")

    assert page.locator("h1").inner_text() == SESSIONS_TITLE[locale]
    assert (keys, sessions) == ([], [])
    assert (keys_overflow, overflow(page)) == (0, 0)
    context.close()
