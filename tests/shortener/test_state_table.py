"""The session states of the spec, walked through in order: anonymous → logged in → admin and back."""

import pytest
from django.test import Client

from shortener import messages
from tests.shortener.asserts import assert_shortener_error
from tests.shortener.factories import ShortLinkFactory

pytestmark = pytest.mark.django_db


def test_session_walks_the_state_table_in_json(user, other_user, admin_password):
    ShortLinkFactory(code="bobs", owner=other_user)
    client = Client()
    as_json = {"_format": "json"}

    # anonymous: no stats, wrong credentials keep it anonymous
    assert client.get("/s/stats", as_json).status_code == 401
    failed = client.post("/s/login", {"login": "alice", "password": "bad", **as_json})
    assert failed.json() == {"success": False, "msg": messages.LOGIN_FAILED}
    assert client.get("/s/stats", as_json).status_code == 401

    # anonymous → logged in
    assert client.post("/s/login", {"login": "alice", "password": "alice-password", **as_json}).json() == {
        "success": True,
        "msg": messages.LOGIN_OK,
    }
    assert client.get("/s/stats", as_json).json() == []
    assert client.get("/s/d/bobs", as_json).status_code == 403

    # logged in, not admin → wrong adminpwd keeps it so
    assert client.post("/s/stats", {"adminpwd": "bad", **as_json}).json() == {"success": False, "msg": "Bad password"}
    assert client.get("/s/stats", as_json).json() == []

    # logged in → admin
    assert client.post("/s/stats", {"adminpwd": admin_password, **as_json}).json() == {
        "success": True,
        "msg": messages.LOGIN_OK,
    }
    assert [item["short"] for item in client.get("/s/stats", as_json).json()] == ["http://testserver/s/bobs"]

    # admin → not admin (still logged in)
    assert client.post("/s/stats", {"action": "logout", **as_json}).json() == {
        "success": True,
        "msg": messages.LOGOUT_OK,
    }
    assert client.get("/s/stats", as_json).json() == []
    assert client.get("/s/d/bobs", as_json).status_code == 403

    # logged in → anonymous
    assert client.get("/s/logout", as_json).json() == {"success": True, "msg": messages.LOGOUT_OK}
    assert client.get("/s/stats", as_json).status_code == 401


def test_logout_from_admin_mode_returns_to_anonymous(admin_mode_client):
    admin_mode_client.get("/s/logout", {"_format": "json"})

    assert_shortener_error(admin_mode_client.get("/s/stats", {"_format": "json"}), 401, messages.LOGIN_REQUIRED)
    assert_shortener_error(admin_mode_client.get("/s/d/anything", {"_format": "json"}), 401, messages.LOGIN_REQUIRED)
