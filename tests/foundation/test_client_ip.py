import pytest
from django.test import RequestFactory
from rest_framework.throttling import BaseThrottle

from common.http import client_ip

FORWARDED = {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "6.6.6.6, 1.2.3.4"}


@pytest.mark.parametrize(("num_proxies", "expected"), [(0, "10.0.0.1"), (1, "1.2.3.4"), (2, "6.6.6.6")])
def test_client_ip_trusts_as_many_forwarded_hops_as_proxies(settings, num_proxies, expected):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": num_proxies}

    assert client_ip(RequestFactory().get("/", **FORWARDED)) == expected


@pytest.mark.parametrize("num_proxies", [None, 0, 1, 2, 5])
@pytest.mark.parametrize(
    "meta",
    [
        {"REMOTE_ADDR": "10.0.0.1"},
        FORWARDED,
        {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": " 6.6.6.6 ,1.2.3.4 "},
        {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": ""},
    ],
    ids=["direct", "forwarded", "spaced", "empty header"],
)
def test_client_ip_is_the_address_drf_throttles(settings, num_proxies, meta):
    # Read from META for speed; the rule must stay DRF's, which the API's throttles use.
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": num_proxies}
    request = RequestFactory().get("/", **meta)

    assert client_ip(request) == (BaseThrottle().get_ident(request) or "")
