"""/accounts/profile/ (issue 44, item 3): bio and avatar, as B's user object then shows them."""

import io
import os
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image

from accounts.models import Avatar
from pastes.models import PasteProfile
from tests.pastes.factories import PasteFactory

pytestmark = pytest.mark.django_db

URL = "/accounts/profile/"
USER_OBJECT = "/pastes/accounts/@alice"


@pytest.fixture(autouse=True)
def media(settings, tmp_path) -> Path:
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def alice(client, user):
    client.force_login(user)
    return client


def image_file(size=(600, 400), image_format="PNG", mode="RGB", name="me.png", **save) -> SimpleUploadedFile:
    buffer = io.BytesIO()
    Image.new(mode, size, "teal").save(buffer, image_format, **save)
    return SimpleUploadedFile(name, buffer.getvalue(), content_type=f"image/{image_format.lower()}")


def stored_files(media: Path) -> list[str]:
    folder = media / "avatars"
    return sorted(path.name for path in folder.iterdir()) if folder.exists() else []


def user_object(client) -> dict:
    response = client.get(USER_OBJECT)
    assert response.status_code == 200
    return response.json()


def test_anonymous_is_sent_to_sign_in_and_back(client):
    response = client.get(URL)

    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/accounts/profile/"


def test_anonymous_post_changes_nothing(client, user):
    response = client.post(URL, {"bio": "hacked"})

    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert not PasteProfile.objects.filter(user=user).exists()


def test_owner_sees_badges_quota_and_current_values(alice, user):
    PasteProfile.objects.create(user=user, bio="Old bio", badges=["staff", "early"], max_paste_chars=5000)
    PasteFactory(owner=user, content="x" * 1200)

    response = alice.get(URL)

    body = response.content.decode()
    assert response.status_code == 200
    assert "Old bio" in body
    assert "staff" in body and "early" in body
    assert "1,200 of 5,000" in body


def test_bio_and_avatar_url_are_what_the_user_object_shows(alice, client, user):
    response = alice.post(URL, {"bio": "I write Rust.", "avatar_url": "https://images.example/me.png"})

    assert response.status_code == 302 and response["Location"] == URL
    profile = PasteProfile.objects.get(user=user)
    assert (profile.bio, profile.avatar) == ("I write Rust.", "https://images.example/me.png")
    shown = user_object(client)
    assert (shown["bio"], shown["avatar"]) == ("I write Rust.", "https://images.example/me.png")


def test_each_user_edits_only_their_own_profile(alice, client, user, other_user):
    PasteProfile.objects.create(user=other_user, bio="Bob's bio")

    alice.post(URL, {"bio": "Alice's bio", "avatar_url": ""})

    assert PasteProfile.objects.get(user=other_user).bio == "Bob's bio"
    assert PasteProfile.objects.get(user=user).bio == "Alice's bio"
    client.force_login(other_user)
    assert "Bob&#x27;s bio" in client.get(URL).content.decode()


def test_badges_and_quota_cannot_be_set_by_the_owner(alice, user):
    PasteProfile.objects.create(user=user, badges=["staff"], max_paste_chars=100)

    alice.post(URL, {"bio": "", "avatar_url": "", "badges": '["admin"]', "max_paste_chars": "999999"})

    profile = PasteProfile.objects.get(user=user)
    assert (profile.badges, profile.max_paste_chars) == (["staff"], 100)


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "ftp://files.example/me.png", "data:image/png;base64,AAAA", "not a url"]
)
def test_an_avatar_url_of_another_scheme_is_refused(alice, user, url):
    response = alice.post(URL, {"bio": "kept?", "avatar_url": url})

    assert response.status_code == 400
    assert "Enter an http:// or https:// address." in response.content.decode()
    assert not PasteProfile.objects.filter(user=user).exists()


def test_an_uploaded_avatar_is_resized_stored_and_served_safely(alice, client, user, media):
    response = alice.post(URL, {"bio": "", "avatar_url": "", "avatar_file": image_file((1000, 500))})

    assert response.status_code == 302
    avatar = Avatar.objects.get(user=user)
    assert avatar.content_type == "image/png"
    shown = user_object(client)["avatar"]
    assert shown.startswith("http://testserver/accounts/avatars/")
    assert PasteProfile.objects.get(user=user).avatar == shown

    served = client.get(shown.removeprefix("http://testserver"))

    assert served.status_code == 200
    assert served["Content-Type"] == "image/png"
    assert served["X-Content-Type-Options"] == "nosniff"
    assert "sandbox" in served["Content-Security-Policy"]
    with Image.open(io.BytesIO(b"".join(served.streaming_content))) as image:
        assert (image.format, image.size) == ("PNG", (256, 128))
    assert stored_files(media) == [avatar.name.removeprefix("avatars/")]


def test_a_jpeg_stays_a_jpeg_and_loses_its_metadata(alice, client, user):
    exif = Image.Exif()
    exif[0x010F] = "Camera maker with a GPS"  # Make
    alice.post(
        URL, {"bio": "", "avatar_url": "", "avatar_file": image_file(image_format="JPEG", name="a.jpg", exif=exif)}
    )

    avatar = Avatar.objects.get(user=user)
    served = client.get(f"/accounts/avatars/{avatar.name.removeprefix('avatars/')}")
    data = b"".join(served.streaming_content)
    assert served["Content-Type"] == "image/jpeg"
    assert b"Camera maker" not in data


def test_replacing_an_avatar_deletes_the_old_file(alice, client, user, media, django_capture_on_commit_callbacks):
    alice.post(URL, {"bio": "", "avatar_url": "", "avatar_file": image_file(name="one.png")})
    first = Avatar.objects.get(user=user).name
    avatar_url = PasteProfile.objects.get(user=user).avatar

    # The old file goes once the transaction commits (the test's own transaction never does).
    with django_capture_on_commit_callbacks(execute=True):
        alice.post(
            URL, {"bio": "", "avatar_url": avatar_url, "avatar_file": image_file((300, 300), "WEBP", name="b.webp")}
        )

    second = Avatar.objects.get(user=user)
    assert second.name != first and second.content_type == "image/webp"
    assert stored_files(media) == [second.name.removeprefix("avatars/")]
    assert client.get(f"/accounts/avatars/{first.removeprefix('avatars/')}").status_code == 404


def test_an_avatar_url_in_place_of_an_upload_deletes_the_file(alice, user, media, django_capture_on_commit_callbacks):
    alice.post(URL, {"bio": "", "avatar_url": "", "avatar_file": image_file()})

    with django_capture_on_commit_callbacks(execute=True):
        alice.post(URL, {"bio": "", "avatar_url": "https://images.example/new.png"})

    assert not Avatar.objects.filter(user=user).exists()
    assert stored_files(media) == []
    assert PasteProfile.objects.get(user=user).avatar == "https://images.example/new.png"


def test_emptying_the_avatar_url_removes_the_avatar(alice, client, user, media, django_capture_on_commit_callbacks):
    alice.post(URL, {"bio": "", "avatar_url": "", "avatar_file": image_file()})

    with django_capture_on_commit_callbacks(execute=True):
        alice.post(URL, {"bio": "still here", "avatar_url": ""})

    assert stored_files(media) == []
    assert user_object(client)["avatar"] is None


def html_as_png() -> SimpleUploadedFile:
    return SimpleUploadedFile(
        "avatar.png", b"\x89PNG\r\n\x1a\n<html><script>alert(document.cookie)</script></html>", content_type="image/png"
    )


def svg() -> SimpleUploadedFile:
    return SimpleUploadedFile(
        "avatar.svg", b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "image/svg+xml"
    )


def bomb() -> SimpleUploadedFile:
    # 36 million pixels in a few dozen kilobytes: decoded, they would take far more memory.
    return image_file((6000, 6000), mode="L", name="bomb.png")


def gif() -> SimpleUploadedFile:
    return image_file(image_format="GIF", name="a.gif")


@pytest.mark.parametrize(
    ("upload", "message"),
    [
        (html_as_png, "This is not a PNG, JPEG or WebP image."),
        (svg, "This is not a PNG, JPEG or WebP image."),
        (gif, "This is not a PNG, JPEG or WebP image."),
        (bomb, "The image has too many pixels: at most 4096 by 4096."),
    ],
    ids=["html-as-png", "svg", "gif", "bomb"],
)
def test_what_is_not_a_small_png_jpeg_or_webp_is_refused_and_nothing_written(alice, user, media, upload, message):
    PasteProfile.objects.create(user=user, bio="before", avatar="https://images.example/old.png")

    response = alice.post(
        URL, {"bio": "after", "avatar_url": "https://images.example/old.png", "avatar_file": upload()}
    )

    assert response.status_code == 400
    assert message in response.content.decode()
    profile = PasteProfile.objects.get(user=user)
    assert (profile.bio, profile.avatar) == ("before", "https://images.example/old.png")
    assert stored_files(media) == []
    assert not Avatar.objects.exists()


def test_a_file_over_the_size_limit_is_refused(alice, user, media, settings):
    settings.ACCOUNTS_AVATAR_MAX_BYTES = 2048
    noisy = io.BytesIO()
    Image.frombytes("RGB", (64, 64), os.urandom(64 * 64 * 3)).save(noisy, "PNG")
    assert len(noisy.getvalue()) > 2048

    response = alice.post(
        URL, {"bio": "", "avatar_url": "", "avatar_file": SimpleUploadedFile("big.png", noisy.getvalue(), "image/png")}
    )

    assert response.status_code == 400
    assert "The image is too big: at most 2 KiB." in response.content.decode()
    assert stored_files(media) == [] and not Avatar.objects.exists()


def test_a_url_and_a_file_at_once_are_refused(alice, media):
    response = alice.post(URL, {"bio": "", "avatar_url": "https://images.example/a.png", "avatar_file": image_file()})

    assert response.status_code == 400
    assert "Give an avatar URL or an image to upload, not both." in response.content.decode()
    assert stored_files(media) == []


def test_a_failing_save_leaves_no_file_behind(alice, user, media, monkeypatch):
    PasteProfile.objects.create(user=user, bio="before")

    def broken_save(self, *args, **kwargs):
        raise RuntimeError("the database went away")

    # The database failing after the file is written: the one thing a user cannot make happen.
    monkeypatch.setattr(PasteProfile, "save", broken_save)
    alice.raise_request_exception = False
    response = alice.post(URL, {"bio": "after", "avatar_url": "", "avatar_file": image_file()})

    assert response.status_code == 500
    assert stored_files(media) == []
    assert not Avatar.objects.exists()
    assert PasteProfile.objects.get(user=user).bio == "before"


def test_an_unknown_avatar_is_404(client, db):
    assert client.get("/accounts/avatars/1-0123456789abcdef0123.png").status_code == 404


def test_a_body_far_over_the_limit_is_refused_before_it_is_read(alice, user, media, settings):
    settings.ACCOUNTS_AVATAR_MAX_BYTES = 2048
    PasteProfile.objects.create(user=user, bio="before")
    huge = SimpleUploadedFile("huge.png", b"\0" * 200_000, "image/png")

    response = alice.post(URL, {"bio": "after", "avatar_url": "", "avatar_file": huge})

    assert response.status_code == 413
    assert "The image is too big: at most 2 KiB. Nothing was changed." in response.content.decode()
    assert PasteProfile.objects.get(user=user).bio == "before"
    assert stored_files(media) == []


def test_a_post_without_the_csrf_token_changes_nothing(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)

    response = client.post(URL, {"bio": "forged", "avatar_url": ""})

    assert response.status_code == 403
    assert not PasteProfile.objects.filter(user=user).exists()
