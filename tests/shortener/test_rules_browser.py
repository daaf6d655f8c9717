"""Issue 46's pages in Chromium at 1280 and 390 px: editing a link's redirect rules, and the preview card."""

import pytest

from shortener.models import ShortLink
from tests.axe import axe_violations, describe
from tests.browser import DESKTOP, PHONE, collect_csp_errors, overflow, sign_in
from tests.shortener.factories import ShortLinkFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP_CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36"
SLACKBOT = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"


@pytest.fixture(params=[DESKTOP, PHONE], ids=["1280px", "390px"])
def viewport(request):
    return request.param


@pytest.fixture
def page(browser, viewport, live_server, user):
    context = browser.new_context(viewport=viewport, user_agent=DESKTOP_CHROME)
    sign_in(context, live_server, user)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.csp_errors = collect_csp_errors(page)
    yield page
    context.close()


def assert_fits(page):
    assert overflow(page) == 0
    assert page.csp_errors == []
    violations = axe_violations(page)
    assert violations == [], describe(violations)


def press(page, name: str) -> None:
    """Click one of the form's submit buttons and wait for the page it leads to."""
    with page.expect_navigation():
        page.get_by_role("button", name=name).click()


def rule_urls(code: str = "abc") -> list[str]:
    return [rule["url"] for rule in ShortLink.objects.get(code=code).rules]


def test_rules_are_added_reordered_and_removed_on_the_rules_page(page, live_server, user):
    ShortLinkFactory(owner=user, code="abc", url="https://example.com/")
    page.goto(f"{live_server.url}/s/edit/abc")
    page.get_by_role("link", name="Redirect rules (0 rules)").click()
    assert page.get_by_test_id("no-rules").is_visible()
    assert_fits(page)

    new = page.get_by_test_id("rule-new")
    new.get_by_label("Send to this URL").fill("https://apps.apple.com/app")
    new.get_by_label("Device").select_option("ios")
    press(page, "Save the rules")
    assert "have been saved" in page.content()
    assert rule_urls() == ["https://apps.apple.com/app"]

    new = page.get_by_test_id("rule-new")
    new.get_by_label("Send to this URL").fill("https://example.fr/")
    new.get_by_label("Language").fill("fr")
    new.get_by_label("Query parameters").fill("ref=mail&beta")
    press(page, "Save the rules")
    assert rule_urls() == ["https://apps.apple.com/app", "https://example.fr/"]
    assert ShortLink.objects.get(code="abc").rules[1]["when"] == {
        "language": "fr",
        "query": {"ref": "mail", "beta": None},
    }
    assert page.get_by_test_id("rule-2").get_by_label("Query parameters").input_value() == "ref=mail&beta"
    assert_fits(page)

    press(page, "Move rule 2 up")
    assert rule_urls() == ["https://example.fr/", "https://apps.apple.com/app"]
    assert page.get_by_test_id("rule-1").get_by_label("Send to this URL").input_value() == "https://example.fr/"

    press(page, "Remove rule 1")
    assert page.get_by_test_id("rule-2").count() == 0
    assert rule_urls() == ["https://apps.apple.com/app"]

    # A mistake is shown with the rows as typed, and nothing is saved.
    new = page.get_by_test_id("rule-new")
    new.get_by_label("Send to this URL").fill("https://example.de/")
    new.get_by_label("Country").fill("D")
    press(page, "Save the rules")
    assert page.get_by_role("alert").inner_text().startswith('Rule 2: "country" must be a two-letter ISO 3166 code')
    assert rule_urls() == ["https://apps.apple.com/app"]
    assert_fits(page)


def test_the_stats_page_shows_the_visits_of_each_rule(page, live_server, user):
    ShortLinkFactory(owner=user, code="abc", rules=[{"when": {"device": "ios"}, "url": "https://apps.apple.com/app"}])

    page.goto(f"{live_server.url}/s/stats/abc")

    assert page.get_by_test_id("rule-visits").inner_text() == "https://apps.apple.com/app: 0"
    assert "No rule matched: 0 visits" in page.get_by_test_id("unmatched-visits").inner_text()
    assert_fits(page)


def test_a_preview_robot_sees_the_card_page(browser, viewport, live_server):
    ShortLinkFactory(
        code="abc",
        url="https://example.com/target",
        preview_title="A card",
        preview_description="What the link is about",
        preview_image="https://example.com/card.png",
    )
    context = browser.new_context(viewport=viewport, user_agent=SLACKBOT)
    page = context.new_page()
    page.csp_errors = collect_csp_errors(page)
    # The card refreshes to the target at once (a 0 s refresh, which axe accepts): the refresh is
    # held back here, so that the card itself is what stays in the browser and is checked.
    served = {}

    def hold_refresh(route):
        response = route.fetch()
        served["body"] = response.text()
        route.fulfill(response=response, body=served["body"].replace('http-equiv="refresh"', "data-held"))

    page.route(f"{live_server.url}/s/abc", hold_refresh)

    response = page.goto(f"{live_server.url}/s/abc")

    assert response.status == 200
    assert '<meta http-equiv="refresh" content="0; url=https://example.com/target">' in served["body"]
    assert page.title() == "A card"
    assert page.get_by_role("link", name="Go to the link").get_attribute("href") == "https://example.com/target"
    assert_fits(page)
    context.close()
