"""A paste's page in a real browser, on a desktop and at 390 px: read, copy, raw, reveal; previews burn nothing."""

import pytest
from django.urls import reverse

from pastes.models import Paste
from tests.browser import DESKTOP, PHONE, collect_csp_errors, overflow
from tests.pastes.factories import PasteFactory
from tests.pastes.test_robots import ROBOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Headless Chromium calls itself HeadlessChrome, which is a robot to the service: a person's browser is not.
CHROME_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36"
LONG_LINE = "x = '" + "a" * 400 + "'"


@pytest.fixture(params=[DESKTOP, PHONE], ids=["desktop", "390px"])
def person(request, browser, live_server):
    context = browser.new_context(viewport=request.param, user_agent=CHROME_UA)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.csp_errors = collect_csp_errors(page)
    yield page
    context.close()


def test_a_person_reads_copies_and_opens_the_raw_text(person, live_server, user):
    content = f"import os\n\n\ndef cwd():\n    return os.getcwd()\n{LONG_LINE}\n"
    paste = PasteFactory(owner=user, name="Current directory", content=content)

    person.goto(f"{live_server.url}/pastes/{paste.id}")

    assert person.get_by_role("heading", name="Current directory").is_visible()
    assert person.get_by_test_id("language").inner_text() == "Python"
    assert person.get_by_test_id("expiry").inner_text() == "Never"
    assert person.locator(".highlight .kn").first.inner_text() == "import"
    assert person.locator(".linenos a").all_inner_texts() == [str(number) for number in range(1, 7)]
    assert overflow(person) == 0  # the 400-character line scrolls inside the code box
    person.get_by_role("button", name="Copy").click()
    person.get_by_text("Copied to the clipboard.").wait_for()
    assert person.evaluate("navigator.clipboard.readText()") == content
    person.get_by_role("link", name="Raw").click()
    # Read once the raw text has loaded: while the click's navigation runs there is no body yet.
    person.wait_for_url(f"{live_server.url}{reverse('pastes:paste-raw', kwargs={'paste_id': paste.id})}")
    assert person.evaluate("document.body.innerText") == content
    assert person.csp_errors == []
    paste.refresh_from_db()
    assert paste.views == 2  # the page and the raw text


def test_a_link_preview_burns_nothing_and_the_person_reveals_it_once(person, browser, live_server, user):
    paste = PasteFactory(
        owner=user, name="Wi-Fi password", content="correct horse battery staple", burn_after_read=True
    )
    url = f"{live_server.url}/pastes/{paste.id}"
    preview = browser.new_context(user_agent=ROBOTS["Slackbot"])
    for path in (url, f"{live_server.url}/pastes/paste/@{paste.id}", f"{live_server.url}/pastes/paste/@{paste.id}/raw"):
        response = preview.request.get(path)
        assert "correct horse" not in response.text()
    preview.close()

    person.goto(url)
    assert "correct horse" not in person.content()
    assert person.get_by_role("heading", name="Wi-Fi password").is_visible()
    person.reload()  # opening the link again burns nothing either
    person.get_by_role("button", name="Reveal").click()

    assert person.locator(".paste-code td.code").inner_text().strip() == "correct horse battery staple"
    assert person.get_by_role("status").first.inner_text().startswith("This paste was burned after reading")
    assert person.get_by_role("link", name="Raw").count() == 0
    assert overflow(person) == 0
    assert not Paste.objects.filter(pk=paste.pk).exists()
    assert person.goto(url).status == 404
    assert person.csp_errors == []
