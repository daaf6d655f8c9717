"""/accounts/keys/ in Chromium (issue 44): make a read-only short-link token, use it as curl would, revoke it."""

import json
import urllib.error
import urllib.request

import pytest

from shortener.models import ApiKey, ShortLink
from tests.browser import PHONE, collect_csp_errors, overflow, sign_in
from tests.shortener.factories import ShortLinkFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def curl(url: str, raw_key: str, data: bytes | None = None) -> tuple[int, dict]:
    """A request as `curl -H 'Authorization: Bearer …'` makes it: no cookie, no CSRF token."""
    request = urllib.request.Request(url, data=data, headers={"Authorization": f"Bearer {raw_key}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def test_make_use_and_revoke_a_token_on_a_phone_in_dark_mode(browser, live_server, user):
    ShortLinkFactory(code="mine", owner=user)
    context = browser.new_context(viewport=PHONE, color_scheme="dark")
    sign_in(context, live_server, user)
    page = context.new_page()
    page.set_default_timeout(10_000)
    csp_errors = collect_csp_errors(page)

    page.goto(f"{live_server.url}/accounts/keys/")
    assert page.get_by_text("You have no key yet.").is_visible()
    page.get_by_label("Interface").select_option("shortener")
    page.get_by_label("Name").fill("dashboard")
    page.get_by_label("Read only").check()
    page.get_by_label("Expires on (optional)").fill("2099-01-01")
    page.get_by_role("button", name="Make the key").click()

    raw_key = page.locator("#new-key-value").input_value()
    assert raw_key.startswith("shr_")
    row = page.locator("tr", has_text="dashboard")
    assert row.get_by_text("Read only").is_visible() and row.get_by_text("Jan. 1, 2099").is_visible()
    assert overflow(page) == 0
    reading = curl(f"{live_server.url}/s/stats", raw_key)
    writing = curl(f"{live_server.url}/s/a", raw_key, data=b"lsturl=https%3A%2F%2Flstu.fr")
    assert (reading[0], [link["short"] for link in reading[1]]) == (200, [f"{live_server.url}/s/mine"])
    assert writing[0] == 403 and writing[1]["success"] is False
    assert list(ShortLink.objects.values_list("code", flat=True)) == ["mine"]

    page.get_by_role("button", name="Revoke the key").click()

    assert page.get_by_role("status").filter(has_text="is revoked").is_visible()
    assert page.get_by_role("button", name="Revoke the key").count() == 0
    assert raw_key not in page.content()
    assert ApiKey.objects.get().is_revoked
    assert curl(f"{live_server.url}/s/stats", raw_key) == (
        401,
        {"success": False, "msg": "The API token is missing, unknown or revoked."},
    )
    assert csp_errors == []
    context.close()
