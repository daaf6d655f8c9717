"""Passwords are hashed with Argon2id at OWASP's parameters; older hashes still verify and are
re-made at the next sign-in (issue 44, item 1). Django's validators stay on."""

import pytest
from django.conf import settings as project_settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import Argon2PasswordHasher, PBKDF2PasswordHasher, make_password
from rest_framework import status

pytestmark = pytest.mark.django_db

OWASP_PREFIX = "argon2$argon2id$v=19$m=19456,t=2,p=1$"


@pytest.fixture
def real_hashers(settings):
    # tests/conftest.py swaps in a fast hasher for every other test; these check the project's own.
    settings.PASSWORD_HASHERS = list(PROJECT_HASHERS)


PROJECT_HASHERS = tuple(project_settings.PASSWORD_HASHERS)


def test_new_passwords_are_argon2id_with_19_mib_2_passes_1_lane(real_hashers):
    assert make_password("correct horse").startswith(OWASP_PREFIX)


@pytest.mark.parametrize(
    "old_hash",
    [
        pytest.param(lambda: PBKDF2PasswordHasher().encode("old-password", "saltsaltsalt"), id="pbkdf2"),
        pytest.param(lambda: Argon2PasswordHasher().encode("old-password", "saltsaltsalt"), id="argon2-defaults"),
    ],
)
@pytest.mark.parametrize("path", ["/accounts/login/", "/s/login"])
def test_a_stored_older_hash_signs_in_and_is_re_made_with_owasp_parameters(client, real_hashers, old_hash, path):
    user = get_user_model().objects.create(username="bob", password=old_hash())

    response = client.post(path, {"login": "bob", "password": "old-password"})

    assert response.status_code == status.HTTP_302_FOUND
    user.refresh_from_db()
    assert user.password.startswith(OWASP_PREFIX)
    assert user.check_password("old-password")


def test_django_s_password_validators_refuse_a_weak_password_at_sign_up(client, settings):
    settings.ACCOUNTS_REGISTRATION = "open"
    data = {"username": "carol", "email": "carol@example.org", "password1": "12345678", "password2": "12345678"}

    response = client.post("/accounts/signup/", data)

    body = response.content.decode()
    assert response.status_code == status.HTTP_200_OK
    assert "This password is too common." in body
    assert "This password is entirely numeric." in body
    assert not get_user_model().objects.filter(username="carol").exists()
