"""Every page of the site through axe-core (issue 23, item 4): no serious or critical violation, at 390 px
and on a desktop, in light and dark, and in German at 390 px (issue 48), besides the overflow and CSP
checks of the other browser tests, and no word broken across two lines.

The list of pages is tests/axe.py's PAGES: a new page is covered by adding its path there.
"""

import pytest

from tests.axe import PAGES, READY, axe_violations, describe
from tests.browser import DESKTOP, PHONE, collect_csp_errors, mid_word_wraps, overflow, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LOOKS = {
    "desktop-light": {"viewport": DESKTOP, "color_scheme": "light"},
    "390px-dark": {"viewport": PHONE, "color_scheme": "dark"},
    # German (issue 48): its long words must wrap, not overflow, and its pages keep every rule.
    "390px-light-de": {"viewport": PHONE, "color_scheme": "light", "locale": "de-DE"},
}


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize(("path", "who"), PAGES, ids=[f"{who}:{path}" for path, who in PAGES])
def test_the_page_has_no_serious_accessibility_violation(browser, live_server, user, objects, path, who, look):
    context = browser.new_context(**LOOKS[look])
    if who in ("signed-in", "admin-mode"):
        sign_in(context, live_server, user, shortener_admin_mode=who == "admin-mode")
    page = context.new_page()
    page.set_default_timeout(10_000)
    csp_errors = collect_csp_errors(page)

    response = page.goto(live_server.url + path.format(**objects))
    page.wait_for_load_state("load")
    if path in READY:
        page.locator(READY[path]).first.wait_for()
    violations = axe_violations(page)

    # A password-protected link answers its password page with 401.
    # A link disabled by moderation answers its page with 410.
    expected = (401,) if "{protected_link}" in path else (410,) if "{disabled_link}" in path else (200, 404)
    assert response is not None and response.status in expected, response and response.status
    assert violations == [], describe(violations)
    assert overflow(page) == 0
    assert mid_word_wraps(page) == []
    assert csp_errors == []
    context.close()
