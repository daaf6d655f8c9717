"""Every page of the axe sweep (tests/axe.py PAGES) in every language besides English, as a browser that asks for
the language shows it (issue 48): no English left beyond names (tests/i18n.py), and <html lang> says
the language. The page is read after its scripts ran, so text they write counts too.
"""

import pytest
from django.conf import settings

from tests.axe import PAGES, READY
from tests.browser import sign_in
from tests.i18n import untranslated

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LANGUAGES = [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
# The sweep's own objects (tests/foundation/conftest.py): their names, texts and keys' names are the
# people's words, in no language of the page.
OBJECT_TEXTS = [
    "alice",
    "Snippet",
    "Sealed",
    "Vault",
    "Once",
    "Talk",
    "Three files",
    "Sealed files",
    "With files",
    "See the files below.",
    "Ann",
    "Nice one",
    "Thanks",
    "ci pipeline",
    "editor",
    "an irc bot with a long name",
    "A card",
    "Phishing: it asks for a bank password.",
    "Reported",
    "Acme Garden Tools",
    *(f"axe{number}" for number in range(1, 5)),
]


def content(browser, live_server, user, url: str, who: str, path: str, locale: str) -> str:
    """The page as a browser whose language is `locale` shows it, once its scripts are done."""
    context = browser.new_context(locale=locale)
    if who in ("signed-in", "admin-mode"):
        sign_in(context, live_server, user, shortener_admin_mode=who == "admin-mode")
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.goto(url)
    page.wait_for_load_state("load")
    if path in READY:
        page.locator(READY[path]).first.wait_for()
    html = page.content()
    context.close()
    return html


@pytest.mark.parametrize(("path", "who"), PAGES, ids=[f"{who}:{path}" for path, who in PAGES])
def test_the_page_leaves_no_english_in_another_language(browser, live_server, user, objects, path, who):
    url = live_server.url + path.format(**objects)
    english = content(browser, live_server, user, url, who, path, "en-US")

    left = {}
    for language in LANGUAGES:
        translated = content(browser, live_server, user, url, who, path, language)
        if f'<html lang="{language}"' not in translated:
            left[language] = ["<html lang> is not " + language]
        elif found := untranslated(english, translated, language, ignore=OBJECT_TEXTS):
            left[language] = found

    assert left == {}, "English left:\n" + "\n".join(f"{language}: {found}" for language, found in left.items())
