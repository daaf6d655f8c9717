"""/accounts/delete/ (issue 44, item 3): the account and all it owns go in one transaction, after a page saying what."""

import datetime
import io

import pytest
from allauth.usersessions.models import UserSession
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db.models.signals import pre_delete
from django.test import Client
from PIL import Image

from accounts.deletion import delete_account
from accounts.models import Avatar
from pastes.models import ApiKey as PastesApiKey
from pastes.models import Paste, PasteProfile
from reports.models import ApiKey as ReportsApiKey
from reports.models import Audit, Project, Report
from shortener.fastpath import links as link_cache
from shortener.models import ApiKey as ShortenerApiKey
from shortener.models import DailyVisits, LinkTag, ShortLink, Visit, VisitBreakdown
from tests.pastes.factories import PasteFactory
from tests.reports.factories import ReportFactory
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db

URL = "/accounts/delete/"
DAY = datetime.date(2026, 11, 1)


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def give(owner, code: str) -> None:
    """One of everything: a paste, a link with visits and a tag, a report, an audit, a key of each interface."""
    PasteFactory(owner=owner)
    PasteProfile.objects.create(user=owner, bio="bio")
    link = ShortLinkFactory(owner=owner, code=code, url=f"https://{code}.example/")
    Visit.objects.create(link=link, visitor="v" * 32, day=DAY)
    DailyVisits.objects.create(link=link, day=DAY, visits=1)
    LinkTag.objects.create(link=link, name="work")
    VisitBreakdown.objects.create(link=link, day=DAY, dimension="country", name="FR", visits=1)
    report = ReportFactory(owner=owner)
    Audit.objects.create(owner=owner, project=report.project, url=f"https://{report.project.name}/", max_pages=5)
    for model in (ReportsApiKey, PastesApiKey, ShortenerApiKey):
        model.issue(user=owner, name="k")


def owned_counts(owner_pk: int) -> dict[str, int]:
    return {
        "pastes": Paste.objects.filter(owner_id=owner_pk).count(),
        "profile": PasteProfile.objects.filter(user_id=owner_pk).count(),
        "links": ShortLink.objects.filter(owner_id=owner_pk).count(),
        "visits": Visit.objects.filter(link__owner_id=owner_pk).count(),
        "daily": DailyVisits.objects.filter(link__owner_id=owner_pk).count(),
        "tags": LinkTag.objects.filter(link__owner_id=owner_pk).count(),
        "reports": Report.objects.filter(owner_id=owner_pk).count(),
        "projects": Project.objects.filter(owner_id=owner_pk).count(),
        "audits": Audit.objects.filter(owner_id=owner_pk).count(),
        "keys": sum(m.objects.filter(user_id=owner_pk).count() for m in (ReportsApiKey, PastesApiKey, ShortenerApiKey)),
    }


ONE_OF_EACH = {
    "pastes": 1,
    "profile": 1,
    "links": 1,
    "visits": 1,
    "daily": 1,
    "tags": 1,
    "reports": 1,
    "projects": 1,
    "audits": 1,
    "keys": 3,
}


def signed_in(user) -> Client:
    client = Client()
    client.login(username=user.username, password=f"{user.username}-password")
    return client


def unknown_code_answer(client, code: str):
    response = client.get(f"/s/{code}", {"_format": "json"})
    return response.status_code, response.json()


def test_anonymous_is_sent_to_sign_in_and_nothing_goes(client, user):
    give(user, "alice1")

    for response in (client.get(URL), client.post(URL, {"password": "alice-password"})):
        assert response.status_code == 302
        assert response["Location"] == "/accounts/login/?next=/accounts/delete/"
    assert owned_counts(user.pk) == ONE_OF_EACH


def test_the_page_says_what_will_go(user):
    give(user, "alice1")
    PasteFactory(owner=user)

    response = signed_in(user).get(URL)

    body = response.content.decode()
    assert response.status_code == 200
    for line in ("2 pastes", "1 short link ", "1 report", "1 project", "1 site audit", "3 API keys"):
        assert line in body
    assert 'name="password"' in body


def test_a_wrong_password_deletes_nothing(user):
    give(user, "alice1")
    client = signed_in(user)

    response = client.post(URL, {"password": "not-it"})

    assert response.status_code == 400
    assert "This is not your password: nothing was deleted." in response.content.decode()
    assert owned_counts(user.pk) == ONE_OF_EACH
    assert client.get("/accounts/profile/").status_code == 200  # still signed in


def test_the_right_password_deletes_the_account_and_all_it_owns_and_signs_out(
    user, other_user, django_capture_on_commit_callbacks
):
    give(user, "alice1")
    give(other_user, "bob1")
    client = signed_in(user)
    elsewhere = signed_in(user)
    client.post("/accounts/profile/", {"bio": "", "avatar_url": "", "avatar_file": tiny_png()})
    avatar_name = Avatar.objects.get(user=user).name
    # Followed once, so that its lookup is cached in this process.
    assert client.get("/s/alice1").status_code == 302
    assert link_cache.local_links.get(("", "alice1")) is not None
    pk = user.pk

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(URL, {"password": "alice-password"})

    assert response.status_code == 302 and response["Location"] == "/"
    assert not get_user_model().objects.filter(pk=pk).exists()
    assert owned_counts(pk) == dict.fromkeys(ONE_OF_EACH, 0)
    # Nothing left behind, not even rows of no link: bob's only.
    for model in (Visit, DailyVisits, LinkTag, VisitBreakdown):
        assert list(model.objects.values_list("link__code", flat=True)) == ["bob1"], model
    assert not Avatar.objects.exists() and not default_storage.exists(avatar_name)
    assert not UserSession.objects.filter(user_id=pk).exists()
    assert Session.objects.count() == 0  # this session and the one elsewhere
    assert elsewhere.get("/accounts/profile/").status_code == 302
    assert client.get("/accounts/profile/").status_code == 302
    # Bob's things are all there.
    assert owned_counts(other_user.pk) == ONE_OF_EACH


def test_the_deleted_users_short_code_answers_like_an_unknown_one(client, user):
    give(user, "alice1")
    assert client.get("/s/alice1").status_code == 302  # cached now
    unknown = unknown_code_answer(client, "nosuch")

    delete_account(user)

    status, body = unknown_code_answer(client, "alice1")
    assert status == unknown[0] == 404
    assert body == {**unknown[1], "msg": unknown[1]["msg"].replace("nosuch", "alice1")}
    assert client.get("/s/alice1").status_code == 404


def test_another_user_deleting_themselves_leaves_this_one_whole(user, other_user):
    give(user, "alice1")
    give(other_user, "bob1")

    response = signed_in(other_user).post(URL, {"password": "bob-password"})

    assert response.status_code == 302
    assert owned_counts(user.pk) == ONE_OF_EACH
    assert get_user_model().objects.filter(username="alice").exists()


def test_an_account_without_a_password_confirms_with_its_username(user):
    # As LDAP and OIDC make them: the password is the directory's or the provider's.
    user.set_unusable_password()
    user.save()
    give(user, "alice1")
    client = Client()
    client.force_login(user)

    page = client.get(URL).content.decode()
    wrong = client.post(URL, {"username": "Alice"})
    right = client.post(URL, {"username": "alice"})

    assert 'name="username"' in page and 'name="password"' not in page
    assert wrong.status_code == 400 and "This is not your username" in wrong.content.decode()
    assert right.status_code == 302
    assert not get_user_model().objects.filter(username="alice").exists()


def test_a_deletion_failing_midway_leaves_everything(client, user):
    give(user, "alice1")
    assert client.get("/s/alice1").status_code == 302

    def fail(sender, instance, **kwargs):
        # After the links and sessions went, before the user row: the transaction must undo them.
        raise RuntimeError("the database went away")

    pre_delete.connect(fail, sender=get_user_model(), dispatch_uid="test-fail-midway")
    try:
        with pytest.raises(RuntimeError):
            delete_account(user)
    finally:
        pre_delete.disconnect(dispatch_uid="test-fail-midway", sender=get_user_model())

    assert get_user_model().objects.filter(pk=user.pk).exists()
    assert owned_counts(user.pk) == ONE_OF_EACH
    assert VisitBreakdown.objects.count() == 1
    assert client.get("/s/alice1").status_code == 302


def tiny_png() -> SimpleUploadedFile:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buffer, "PNG")
    return SimpleUploadedFile("a.png", buffer.getvalue(), "image/png")
