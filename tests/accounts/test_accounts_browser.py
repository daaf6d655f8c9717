"""The newcomer's journey in Chromium (issue 44): a page that needs an account → sign up → the
mailed link → confirm → sign in → back on that page; on a 390 px phone in dark mode, every page
fitting the screen, in the site's layout, with no CSP refusal."""

import pytest
from django.core import mail

from tests.accounts.conftest import LINK, STRONG_PASSWORD
from tests.browser import PHONE, collect_csp_errors, overflow

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_sign_up_mail_confirm_and_sign_in_in_a_browser(browser, live_server, settings):
    settings.ACCOUNTS_REGISTRATION = "open"
    base = live_server.url
    widths = {}

    # Signing up in one browser, as on a phone.
    context = browser.new_context(viewport=PHONE, color_scheme="dark")
    page = context.new_page()
    page.set_default_timeout(15_000)
    csp_errors = collect_csp_errors(page)
    page.goto(f"{base}/reports/")
    page.wait_for_url(f"{base}/accounts/login/?next=/reports/")
    widths["login"] = overflow(page)
    page.get_by_role("link", name="sign up").click()
    page.wait_for_url("**/accounts/signup/**")
    page.locator('input[name="username"]').fill("newcomer")
    page.locator('input[name="email"]').fill("newcomer@example.org")
    page.locator('input[name="password1"]').fill(STRONG_PASSWORD)
    page.locator('input[name="password2"]').fill(STRONG_PASSWORD)
    widths["signup"] = overflow(page)
    page.locator("main form").get_by_role("button").click()
    page.wait_for_url(f"{base}/accounts/confirm-email/")
    widths["verification sent"] = overflow(page)
    assert page.get_by_role("heading", level=1).inner_text().strip() == "Verify Your Email Address"
    background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    assert background == "rgb(13, 17, 23)"  # the site's dark palette, not allauth's bare page
    context.close()

    # The mail's link, opened in another browser (a mail client's), confirms and leads to sign in.
    (message,) = mail.outbox
    (link,) = [link for link in LINK.findall(message.body) if "/accounts/confirm-email/" in link]
    other = browser.new_context(viewport=PHONE, color_scheme="dark")
    page = other.new_page()
    page.set_default_timeout(15_000)
    csp_errors += collect_csp_errors(page)
    assert link.startswith(f"{base}/accounts/confirm-email/")  # the site's own address, as the browser used it
    page.goto(link)
    widths["confirm"] = overflow(page)
    page.locator("main form").get_by_role("button", name="Confirm").click()
    page.wait_for_url(f"{base}/accounts/login/")

    # Sign in with the email address from a page: the header's link comes back to it.
    page.goto(f"{base}/pastes/")
    page.get_by_role("navigation", name="Site").get_by_role("link", name="Sign in").click()
    page.wait_for_url(f"{base}/accounts/login/?next=/pastes/")
    page.get_by_label("Login").fill("newcomer@example.org")
    page.get_by_label("Password").fill(STRONG_PASSWORD)
    page.locator("main form").get_by_role("button", name="Sign In").click()
    page.wait_for_url(f"{base}/pastes/")
    assert page.get_by_test_id("signed-in-as").inner_text() == "Signed in as newcomer"
    other.close()

    assert widths == dict.fromkeys(widths, 0)
    assert csp_errors == []
