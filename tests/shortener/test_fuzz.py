"""Interface C's form and JSON inputs fuzzed with hypothesis: every answer is a success or a refusal, never a 500.

Seeded (derandomize) and bounded so that CI stays fast.
"""

import json

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = [pytest.mark.django_db, pytest.mark.log_without_tracebacks]

FIELDS = ["login", "password", "url", "shorturl", "adminpwd", "_format", "page", "code"]
ENDPOINTS = ["/s/login", "/s/a", "/s/stats"]
FUZZ = settings(
    max_examples=40, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck)
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=8,
)
form_bodies = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), st.text(max_size=60), max_size=6)
json_bodies = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), json_values, max_size=6) | json_values


def assert_refused_in_shape(response) -> None:
    assert response.status_code < 500, response.content[:300]
    if response.status_code >= 400:
        if response["Content-Type"].startswith("application/json"):
            assert response.json()["success"] is False
        else:
            assert response["Content-Type"].startswith("text/html")


@pytest.fixture
def clients(user) -> dict[str, Client]:
    signed_in = Client()
    signed_in.force_login(user)
    return {"session": signed_in, "anonymous": Client()}


@pytest.mark.parametrize("who", ["session", "anonymous"])
@pytest.mark.parametrize("path", ENDPOINTS)
@FUZZ
@given(body=form_bodies)
def test_form_posts_never_reach_a_500(clients, who, path, body):
    response = clients[who].post(path, body)

    assert_refused_in_shape(response)


@pytest.mark.parametrize("who", ["session", "anonymous"])
@pytest.mark.parametrize("path", ENDPOINTS)
@FUZZ
@given(body=json_bodies)
def test_json_posts_never_reach_a_500(clients, who, path, body):
    response = clients[who].post(path, json.dumps(body), content_type="application/json")

    assert_refused_in_shape(response)


@FUZZ
@given(code=st.text(min_size=1, max_size=40), query=st.dictionaries(st.sampled_from(FIELDS), st.text(max_size=20)))
def test_code_paths_never_reach_a_500(clients, code, query):
    for path in (f"/s/{code}", f"/s/stats/{code}", f"/s/d/{code}"):
        response = clients["session"].get(path, query)

        assert_refused_in_shape(response)
