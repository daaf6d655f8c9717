"""/accounts/profile/ and /accounts/delete/ in Chromium (issue 44): upload an avatar, see it, delete the account."""

import io

import pytest
from django.contrib.auth import get_user_model
from PIL import Image

from pastes.models import PasteProfile
from tests.browser import PHONE, collect_csp_errors, overflow, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def png(size=(800, 800)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, "purple").save(buffer, "PNG")
    return buffer.getvalue()


def test_upload_an_avatar_then_delete_the_account_on_a_phone_in_dark_mode(browser, live_server, user):
    context = browser.new_context(viewport=PHONE, color_scheme="dark")
    sign_in(context, live_server, user)
    page = context.new_page()
    page.set_default_timeout(10_000)
    csp_errors = collect_csp_errors(page)

    page.goto(f"{live_server.url}/accounts/profile/")
    page.get_by_label("Bio", exact=True).fill("Pastes about birds.")
    page.get_by_label("Or upload an image").set_input_files(
        {"name": "me.png", "mimeType": "image/png", "buffer": png()}
    )
    page.get_by_role("button", name="Save the profile").click()

    assert page.get_by_text("Your profile is saved.").is_visible()
    avatar = page.get_by_role("img", name="Your current avatar")
    assert avatar.evaluate("img => img.decode().then(() => img.naturalWidth)") == 256  # once it has loaded
    assert PasteProfile.objects.get(user=user).bio == "Pastes about birds."
    assert overflow(page) == 0

    page.goto(f"{live_server.url}/accounts/delete/")
    page.get_by_label("Your password").fill("wrong")
    page.get_by_role("button", name="Delete my account").click()
    assert page.get_by_text("This is not your password: nothing was deleted.").is_visible()
    page.get_by_label("Your password").fill("alice-password")
    page.get_by_role("button", name="Delete my account").click()

    page.wait_for_url(f"{live_server.url}/")
    assert page.get_by_text("The account alice and everything it held are deleted.").is_visible()
    assert not get_user_model().objects.filter(username="alice").exists()
    assert csp_errors == []
    context.close()
