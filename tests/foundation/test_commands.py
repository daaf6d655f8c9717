import json
from datetime import UTC, datetime
from io import StringIO

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command, get_commands

from common.api_keys import key_model
from pastes.models import ApiKey as PastesApiKey
from reports.models import ApiKey as ReportsApiKey
from shortener.models import ApiKey as ShortenerApiKey

pytestmark = pytest.mark.django_db


def run(*args: str, **options) -> list[str]:
    out = StringIO()
    call_command(*args, stdout=out, **options)
    return out.getvalue().splitlines()


@pytest.mark.parametrize("command", ["create_api_key", "create_demo_user"])
def test_the_commands_for_all_interfaces_belong_to_the_common_app(command):
    # They serve A, B and C alike, so no interface app owns them.
    assert get_commands()[command] == "common"


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


@pytest.mark.parametrize("interface", ["reports", "pastes", "shortener"])
def test_create_api_key_makes_a_write_key_that_never_expires_by_default(user, interface):
    run("create_api_key", user.username, "--interface", interface)

    api_key = key_model(interface).objects.get()
    assert (api_key.scope, api_key.expires_at) == ("write", None)


def test_create_api_key_makes_a_read_key_that_expires_on_a_day(user):
    with time_machine.travel(datetime(2026, 3, 1, 12, tzinfo=UTC), tick=False):
        lines = run(
            "create_api_key", user.username, "--interface", "shortener", "--scope", "read", "--expires", "2026-04-01"
        )

    api_key = ShortenerApiKey.objects.get()
    assert (api_key.scope, api_key.expires_at) == ("read", datetime(2026, 4, 1, tzinfo=UTC))
    with time_machine.travel(datetime(2026, 3, 31, 23, 59, tzinfo=UTC), tick=False):
        assert ShortenerApiKey.authenticate(lines[-1]) == api_key
    with time_machine.travel(datetime(2026, 4, 1, tzinfo=UTC), tick=False):
        assert ShortenerApiKey.authenticate(lines[-1]) is None


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--scope", "admin", "invalid choice"),
        ("--expires", "next week", "must be a date"),
        ("--expires", "2026-02-30", "must be a date"),
        ("--expires", "2026-03-01", "must be a day after today"),
        ("--expires", "2020-01-01", "must be a day after today"),
    ],
)
def test_create_api_key_refuses_a_bad_scope_or_expiry(option, value, message):
    with (
        time_machine.travel(datetime(2026, 3, 1, 12, tzinfo=UTC), tick=False),
        pytest.raises(CommandError, match=message),
    ):
        call_command("create_api_key", "carol", "--interface", "reports", option, value)

    assert not ReportsApiKey.objects.exists()
    assert not get_user_model().objects.filter(username="carol").exists()


def test_create_demo_user_sets_the_password_and_prints_one_key_per_interface():
    lines = run("create_demo_user")

    demo = get_user_model().objects.get(username="demo")
    assert demo.check_password("demo")
    keys = [line for line in lines if line.startswith(("rpt_", "pst_"))]
    assert ReportsApiKey.authenticate(keys[0]).user == demo
    assert PastesApiKey.authenticate(keys[1]).user == demo


def demo_keys(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith(("rpt_", "pst_"))]


def test_create_demo_user_reprints_the_kept_keys_instead_of_making_more(tmp_path):
    keys_file = tmp_path / "demo_keys"
    first = demo_keys(run("create_demo_user", "--keys-file", str(keys_file)))

    second = demo_keys(run("create_demo_user", "--keys-file", str(keys_file)))

    assert second == first
    assert ReportsApiKey.objects.count() == 1
    assert PastesApiKey.objects.count() == 1
    assert oct(keys_file.stat().st_mode & 0o777) == "0o600"


def test_create_demo_user_replaces_a_key_that_no_longer_works_and_revokes_the_old_one(tmp_path):
    keys_file = tmp_path / "demo_keys"
    first_reports, first_pastes = demo_keys(run("create_demo_user", "--keys-file", str(keys_file)))
    ReportsApiKey.authenticate(first_reports).revoke()

    second_reports, second_pastes = demo_keys(run("create_demo_user", "--keys-file", str(keys_file)))

    assert second_reports != first_reports
    assert ReportsApiKey.authenticate(second_reports).user.username == "demo"
    assert second_pastes == first_pastes
    assert ReportsApiKey.objects.filter(revoked_at__isnull=True).count() == 1


def test_create_demo_user_without_a_keys_file_revokes_the_previous_demo_keys():
    first = demo_keys(run("create_demo_user"))

    second = demo_keys(run("create_demo_user"))

    assert set(first).isdisjoint(second)
    assert [ReportsApiKey.authenticate(first[0]), PastesApiKey.authenticate(first[1])] == [None, None]
    assert PastesApiKey.objects.filter(revoked_at__isnull=True).count() == 1


def test_create_demo_user_ignores_a_damaged_keys_file(tmp_path):
    keys_file = tmp_path / "demo_keys"
    keys_file.write_text("not json")

    lines = run("create_demo_user", "--keys-file", str(keys_file))

    keys = demo_keys(lines)
    [shortener_key] = [line for line in lines if line.startswith("shr_")]
    assert PastesApiKey.authenticate(keys[1]).user.username == "demo"
    assert ShortenerApiKey.authenticate(shortener_key).user.username == "demo"
    assert json.loads(keys_file.read_text()) == {"reports": keys[0], "pastes": keys[1], "shortener": shortener_key}


def test_create_demo_user_prints_how_to_enter_the_admin_modes(settings):
    settings.SHORTENER_ADMINPWD = "s3cret-admin"

    lines = run("create_demo_user", "--base-url", "http://127.0.0.1:18400")

    assert (
        "Short links admin mode: sign in at http://127.0.0.1:18400/s/login, open Statistics and enter "
        "the admin password s3cret-admin"
    ) in lines
    assert any("manage.py createsuperuser" in line for line in lines)


def test_create_demo_user_says_when_admin_mode_is_off(settings):
    settings.SHORTENER_ADMINPWD = ""
    settings.SHORTENER_HASHED_ADMINPWD = ""

    lines = run("create_demo_user")

    assert "Short links admin mode is off: set SHORTENER_ADMINPWD to turn it on." in lines
