"""Failed sign-ins are counted per account and per address; successes are not (issue 44, item 5).

/s/login, the admin's sign-in and any other caller of django.contrib.auth.authenticate with a
password share the counts (accounts/signin_limits.py). On today's main /s/login counted every
attempt per address: the eleventh person of an office behind one address was refused.
"""

import re
from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.forms import SetPasswordForm
from django.test import Client
from django.utils import timezone
from rest_framework import status

from accounts import signin_limits
from accounts.models import SignInFailures
from shortener import messages
from tests.concurrency import run_concurrently
from tests.shortener.asserts import assert_shortener_error, assert_shortener_error_page

OFFICE = "203.0.113.7"
JSON = {"_format": "json"}
LOCKED = messages.TOO_MANY_LOGINS


def sign_in(login: str, password: str, *, address: str = OFFICE, as_json: bool = True, client: Client | None = None):
    data = {"login": login, "password": password, **(JSON if as_json else {})}
    return (client or Client()).post("/s/login", data, REMOTE_ADDR=address)


def failures(kind: str, key: str) -> int:
    row = SignInFailures.objects.filter(kind=kind, key=key).first()
    return 0 if row is None else row.failures


def without_csrf_token(response) -> str:
    """The body, less the form's CSRF token (a new one on every page)."""
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", response.content.decode())


@pytest.fixture
def frozen():
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        yield traveller


# --- the office behind one address ------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("as_json", [True, False], ids=["json", "html"])
def test_thirty_people_behind_one_address_all_sign_in_within_a_minute(as_json, frozen):
    people = [get_user_model().objects.create_user(f"colleague{n}", password=f"password-{n}") for n in range(30)]
    # A few typos on the way, as an office makes.
    for person in people[:5]:
        assert sign_in(person.username, "typo", as_json=as_json).status_code == status.HTTP_401_UNAUTHORIZED

    answers = []
    for n, person in enumerate(people):
        client = Client()
        answers.append(sign_in(person.username, f"password-{n}", as_json=as_json, client=client))
        assert client.session["_auth_user_id"] == str(person.pk)
        frozen.shift(timedelta(seconds=1))

    if as_json:
        assert [answer.json() for answer in answers] == [{"success": True, "msg": messages.LOGIN_OK}] * 30
    else:
        assert [(answer.status_code, answer["Location"]) for answer in answers] == [(302, "/s/")] * 30
    assert failures("address", OFFICE) == 5  # the successes were not counted


# --- one account, ten wrong passwords ---------------------------------------


@pytest.mark.django_db
def test_ten_wrong_passwords_lock_the_account_with_a_doubling_delay_up_to_the_cap(user, settings, frozen):
    settings.ACCOUNTS_SIGNIN_LOCK_MAX_SECONDS = 200
    # From ten addresses: the account's count, not one address's.
    wrong = [sign_in("alice", "wrong", address=f"198.51.100.{n}").status_code for n in range(10)]
    locked = sign_in("alice", "alice-password")

    frozen.shift(timedelta(seconds=61))
    after_first_lock = sign_in("alice", "wrong")  # the password was checked again: one more failure
    second = sign_in("alice", "alice-password")
    frozen.shift(timedelta(seconds=121))
    sign_in("alice", "wrong")
    third = sign_in("alice", "alice-password")  # 240 s, capped at 200
    frozen.shift(timedelta(seconds=201))
    back = sign_in("alice", "alice-password")

    assert wrong == [401] * 10
    assert_shortener_error(locked, 429, LOCKED.format(seconds=60))
    assert locked["Retry-After"] == "60"
    assert_shortener_error(after_first_lock, 401, messages.LOGIN_FAILED)
    assert_shortener_error(second, 429, LOCKED.format(seconds=120))
    assert_shortener_error(third, 429, LOCKED.format(seconds=200))
    assert back.json() == {"success": True, "msg": messages.LOGIN_OK}
    # Signing in cleared the account's count.
    assert failures("account", f"user:{user.pk}") == 0


@pytest.mark.django_db
@pytest.mark.parametrize("as_json", [True, False], ids=["json", "html"])
def test_during_a_lock_the_right_password_gets_the_wrong_ones_answer_and_no_password_is_checked(
    as_json, user, frozen, monkeypatch
):
    for _ in range(10):
        sign_in("alice", "wrong")
    checked = []
    original = ModelBackend.authenticate

    def check(*args: object, **kwargs: object) -> object:
        checked.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(ModelBackend, "authenticate", check)

    right = sign_in("alice", "alice-password", as_json=as_json)
    wrong = sign_in("alice", "wrong", as_json=as_json)

    assert (right.status_code, without_csrf_token(right)) == (wrong.status_code, without_csrf_token(wrong))
    assert right["Retry-After"] == wrong["Retry-After"] == "60"
    if as_json:
        assert_shortener_error(right, 429, LOCKED.format(seconds=60))
    else:
        assert_shortener_error_page(right, 429, LOCKED.format(seconds=60))
    assert checked == []  # nothing to time: neither password reached a password check
    assert failures("account", f"user:{user.pk}") == 10  # refused tries are not counted


@pytest.mark.django_db
def test_an_unknown_name_gets_the_same_answers_as_a_wrong_password(user, frozen):
    def ten_then_one_more(login: str) -> list[tuple[int, bytes]]:
        answers = [sign_in(login, "wrong", address=f"198.51.100.{n}") for n in range(11)]
        return [(answer.status_code, answer.content) for answer in answers]

    known, unknown = ten_then_one_more("alice"), ten_then_one_more("nobody")

    assert known == unknown
    assert known[0] == (401, b'{"success": false, "msg": "Please, check your credentials: unable to authenticate."}')
    assert known[-1][0] == 429


@pytest.mark.django_db
def test_the_username_and_the_email_address_of_one_account_count_together(user, frozen):
    user.email = "alice@example.org"
    user.save()
    for n in range(5):
        sign_in("ALICE", "wrong", address=f"198.51.100.{n}")
        sign_in("Alice@Example.org", "wrong", address=f"198.51.100.{n}")

    assert_shortener_error(sign_in("alice", "alice-password"), 429, LOCKED.format(seconds=60))


@pytest.mark.django_db
def test_a_new_password_lifts_the_lock(user, frozen):
    for _ in range(10):
        sign_in("alice", "wrong")
    assert sign_in("alice", "alice-password").status_code == 429

    # What the reset-by-mail page does with the new password (Django's and allauth's alike).
    form = SetPasswordForm(user, {"new_password1": "a-new-long-password", "new_password2": "a-new-long-password"})
    assert form.is_valid(), form.errors
    form.save()

    assert sign_in("alice", "a-new-long-password").json() == {"success": True, "msg": messages.LOGIN_OK}


@pytest.mark.django_db
def test_a_success_clears_the_account_count_and_failures_are_forgotten_after_the_window(user, settings, frozen):
    for _ in range(9):
        sign_in("alice", "wrong")
    sign_in("alice", "alice-password")
    for _ in range(9):
        sign_in("alice", "wrong")
    frozen.shift(timedelta(seconds=settings.ACCOUNTS_SIGNIN_WINDOW))
    sign_in("alice", "wrong")

    assert sign_in("alice", "alice-password").status_code == status.HTTP_200_OK
    # The address's count is not cleared by a success; the window forgot the first 18.
    assert failures("address", OFFICE) == 1


# --- one address, many accounts --------------------------------------------


@pytest.mark.django_db
def test_one_address_trying_many_accounts_is_slowed_and_others_are_not(user, settings, frozen):
    settings.ACCOUNTS_SIGNIN_ADDRESS_FAILURES = 20
    for n in range(20):
        sign_in(f"someone{n}", "guess")  # one try each: no account reaches its own limit

    from_there = sign_in("alice", "alice-password")
    from_elsewhere = sign_in("alice", "alice-password", address="192.0.2.1")
    frozen.shift(timedelta(seconds=61))
    sign_in("someone20", "guess")
    slower = sign_in("alice", "alice-password")

    assert_shortener_error(from_there, 429, LOCKED.format(seconds=60))
    assert from_elsewhere.status_code == status.HTTP_200_OK
    assert_shortener_error(slower, 429, LOCKED.format(seconds=120))


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("192.0.2.10", "192.0.2.10"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"),
        ("::ffff:192.0.2.10", "192.0.2.10"),
    ],
)
def test_an_ipv6_client_is_counted_by_its_64_block(rf, address, key):
    assert signin_limits.address_key(rf.get("/", REMOTE_ADDR=address)) == key


# --- the admin's sign-in ------------------------------------------------------


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_user("staffer", password="staff-password", is_staff=True)


def admin_sign_in(password: str, *, address: str = OFFICE) -> Client:
    client = Client()
    client.response = client.post(
        "/admin/login/", {"username": "staffer", "password": password, "next": "/admin/"}, REMOTE_ADDR=address
    )
    return client


def test_admin_sign_in_failures_count_with_the_others_and_lock_it_too(staff, frozen):
    for _ in range(5):
        assert admin_sign_in("wrong").response.status_code == status.HTTP_200_OK
    for _ in range(5):
        sign_in("staffer", "wrong")

    locked = admin_sign_in("staff-password").response
    frozen.shift(timedelta(seconds=61))
    back = admin_sign_in("staff-password")

    assert failures("account", f"user:{staff.pk}") == 0  # cleared by the last sign-in
    assert signin_limits.locked_message(60) in locked.content.decode()
    assert "_auth_user_id" not in locked.wsgi_request.session
    assert (back.response.status_code, back.response["Location"]) == (302, "/admin/")
    assert back.session["_auth_user_id"] == str(staff.pk)


def test_a_wrong_admin_password_is_counted(staff):
    response = admin_sign_in("wrong").response

    assert "Please enter the correct username and password" in response.content.decode()
    assert failures("account", f"user:{staff.pk}") == 1
    assert failures("address", OFFICE) == 1


# --- concurrency (PostgreSQL: real row locks) -------------------------------

PARALLEL = 12


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_wrong_passwords_count_exactly_once_each(settings):
    settings.ACCOUNTS_SIGNIN_ACCOUNT_FAILURES = 100
    settings.ACCOUNTS_SIGNIN_ADDRESS_FAILURES = 100
    user = get_user_model().objects.create_user("alice", password="alice-password")

    results = run_concurrently(lambda: sign_in("alice", "wrong").status_code, times=PARALLEL)

    assert results == [401] * PARALLEL
    assert failures("account", f"user:{user.pk}") == PARALLEL
    assert failures("address", OFFICE) == PARALLEL


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_parallel_wrong_passwords_past_the_limit_lock_the_account(settings):
    settings.ACCOUNTS_SIGNIN_ACCOUNT_FAILURES = 3
    user = get_user_model().objects.create_user("alice", password="alice-password")

    results = run_concurrently(lambda: sign_in("alice", "wrong").status_code, times=PARALLEL)

    # Every try that reached a password check was counted; the lock then refused the rest.
    checked = results.count(401)
    assert checked >= 3 and set(results) <= {401, 429}
    assert failures("account", f"user:{user.pk}") == checked
    assert sign_in("alice", "alice-password").status_code == 429


# --- the same on the site's sign-in and the admin's (issue 44, item 5) ---------------


def site_sign_in(login: str, password: str, *, address: str = OFFICE, client: Client | None = None):
    client = client or Client()
    return client.post("/accounts/login/", {"login": login, "password": password}, REMOTE_ADDR=address)


def admin_door_sign_in(login: str, password: str, *, address: str = OFFICE, client: Client | None = None):
    client = client or Client()
    data = {"username": login, "password": password, "next": "/admin/"}
    return client.post("/admin/login/", data, REMOTE_ADDR=address)


DOORS = {"site": site_sign_in, "admin": admin_door_sign_in}
# Where each sends a person it let in.
LANDING = {"site": "/", "admin": "/admin/"}


def signed_in(response) -> bool:
    return "_auth_user_id" in response.wsgi_request.session


@pytest.mark.django_db
@pytest.mark.parametrize("door", DOORS)
def test_thirty_people_behind_one_address_all_sign_in_within_a_minute_on_every_door(door, frozen):
    sign_in_at = DOORS[door]
    # Staff, so that the admin lets them in too.
    people = [
        get_user_model().objects.create_user(f"colleague{n}", password=f"password-{n}", is_staff=True)
        for n in range(30)
    ]
    for person in people[:5]:
        assert not signed_in(sign_in_at(person.username, "typo"))

    answers = []
    for n, person in enumerate(people):
        client = Client()
        response = sign_in_at(person.username, f"password-{n}", client=client)
        answers.append((response.status_code, response["Location"] if response.status_code == 302 else None))
        assert client.session["_auth_user_id"] == str(person.pk)
        frozen.shift(timedelta(seconds=1))

    assert answers == [(302, LANDING[door])] * 30
    assert failures("address", OFFICE) == 5


@pytest.mark.django_db
@pytest.mark.parametrize("door", DOORS)
def test_ten_wrong_passwords_lock_password_sign_in_with_a_growing_delay_on_every_door(door, settings, frozen):
    sign_in_at = DOORS[door]
    staff = get_user_model().objects.create_user("carol", password="carol-password", is_staff=True)
    wrong = [signed_in(sign_in_at("carol", "wrong", address=f"198.51.100.{n}")) for n in range(10)]

    locked = sign_in_at("carol", "carol-password")
    frozen.shift(timedelta(seconds=61))
    sign_in_at("carol", "wrong")  # past the first lock: checked, and the lock doubles
    frozen.shift(timedelta(seconds=61))
    still_locked = sign_in_at("carol", "carol-password")
    frozen.shift(timedelta(seconds=60))
    back = sign_in_at("carol", "carol-password")

    assert wrong == [False] * 10
    assert not signed_in(locked)
    assert not signed_in(still_locked)  # 120 s this time, not 60
    assert (back.status_code, back["Location"]) == (302, LANDING[door])
    assert signed_in(back) and back.wsgi_request.session["_auth_user_id"] == str(staff.pk)


@pytest.mark.django_db
@pytest.mark.parametrize("door", DOORS)
def test_an_unknown_name_gets_the_same_answers_as_a_wrong_password_on_every_door(door, frozen):
    sign_in_at = DOORS[door]
    get_user_model().objects.create_user("carol", password="carol-password", is_staff=True)

    def eleven_wrong(login: str) -> list[tuple[int, str]]:
        answers = [sign_in_at(login, "wrong", address=f"198.51.100.{n}") for n in range(11)]
        return [(answer.status_code, without_csrf_token(answer)) for answer in answers]

    known, unknown = eleven_wrong("carol"), eleven_wrong("nobody")

    def named(login: str, answers: list) -> list:
        # The form shows back the name typed, and the admin's page has a new CSP nonce on each answer.
        return [(code, re.sub(r'nonce="[^"]*"', "", body.replace(login, "NAME"))) for code, body in answers]

    assert named("carol", known) == named("nobody", unknown)
    assert {code for code, _ in known} == {200}  # the form again, with its error
