import pytest
from django.test import RequestFactory

from common.http import client_ip

FORWARDED = {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "6.6.6.6, 1.2.3.4"}


@pytest.mark.parametrize(("num_proxies", "expected"), [(0, "10.0.0.1"), (1, "1.2.3.4"), (2, "6.6.6.6")])
def test_client_ip_trusts_as_many_forwarded_hops_as_proxies(settings, num_proxies, expected):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": num_proxies}

    assert client_ip(RequestFactory().get("/", **FORWARDED)) == expected
