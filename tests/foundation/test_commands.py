from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from pastes.models import ApiKey as PastesApiKey
from reports.models import ApiKey as ReportsApiKey

pytestmark = pytest.mark.django_db


def run(*args: str, **options) -> list[str]:
    out = StringIO()
    call_command(*args, stdout=out, **options)
    return out.getvalue().splitlines()


def test_create_api_key_creates_the_user_and_prints_the_key_last():
    lines = run("create_api_key", "carol", "--interface", "reports")

    carol = get_user_model().objects.get(username="carol")
    assert not carol.has_usable_password()
    assert ReportsApiKey.authenticate(lines[-1]).user == carol


def test_create_api_key_reuses_an_existing_user(user):
    lines = run("create_api_key", user.username, "--interface", "pastes")

    assert get_user_model().objects.filter(username=user.username).count() == 1
    assert PastesApiKey.authenticate(lines[-1]).user == user
    assert user.check_password("alice-password")


def test_create_api_key_refuses_an_unknown_interface():
    with pytest.raises(CommandError, match="invalid choice"):
        call_command("create_api_key", "carol", "--interface", "nope")

    assert not get_user_model().objects.filter(username="carol").exists()


def test_create_demo_user_sets_the_password_and_prints_one_key_per_interface():
    lines = run("create_demo_user")

    demo = get_user_model().objects.get(username="demo")
    assert demo.check_password("demo")
    keys = [line for line in lines if line.startswith(("rpt_", "pst_"))]
    assert ReportsApiKey.authenticate(keys[0]).user == demo
    assert PastesApiKey.authenticate(keys[1]).user == demo
