"""The admin-mode page of the short domains' redirects in a browser: axe, 390 px and dark, and its forms saving."""

import pytest

from shortener.models import ShortDomain
from tests.axe import axe_violations, describe
from tests.browser import DESKTOP, PHONE, collect_csp_errors, mid_word_wraps, overflow, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LOOKS = {
    "desktop-light": {"viewport": DESKTOP, "color_scheme": "light"},
    "390px-dark": {"viewport": PHONE, "color_scheme": "dark"},
}


@pytest.fixture
def two_domains(settings):
    settings.SHORTENER_DOMAINS = ["sho.rt", "a-rather-long-second-short-domain.example"]
    settings.ALLOWED_HOSTS = ["*"]
    settings.SHORTENER_ADMINPWD = "toto"


@pytest.mark.parametrize("look", LOOKS)
def test_the_domains_page_is_accessible_and_fits(browser, live_server, user, two_domains, look):
    context = browser.new_context(**LOOKS[look])
    sign_in(context, live_server, user, shortener_admin_mode=True)
    page = context.new_page()
    csp_errors = collect_csp_errors(page)

    response = page.goto(f"{live_server.url}/s/domains")
    page.wait_for_load_state("load")

    assert response is not None and response.status == 200
    assert page.locator("form.shorten-form").count() == 2
    assert axe_violations(page) == [], describe(axe_violations(page))
    assert overflow(page) == 0
    assert mid_word_wraps(page) == []
    assert csp_errors == []
    context.close()


def test_an_admin_sets_a_not_found_redirect_with_the_page(browser, live_server, user, two_domains):
    context = browser.new_context(viewport=PHONE)
    sign_in(context, live_server, user, shortener_admin_mode=True)
    page = context.new_page()
    page.goto(f"{live_server.url}/s/domains")

    second = page.locator("form.shorten-form").nth(1)
    second.get_by_label("Not-found redirect").fill("https://missing.example/")
    second.get_by_role("button").click()
    page.wait_for_load_state("load")

    assert "The redirects of a-rather-long-second-short-domain.example are saved." in page.content()
    row = ShortDomain.objects.get()
    assert (row.domain, row.not_found_redirect) == (
        "a-rather-long-second-short-domain.example",
        "https://missing.example/",
    )
    assert page.locator("form.shorten-form").nth(1).get_by_label("Not-found redirect").input_value() == (
        "https://missing.example/"
    )
    context.close()
