"""A refused request is one line in the log, without a traceback; a server error keeps its traceback (issue 49, item 9).

344 tracebacks were logged for answers that were really 4xx: Django logs every SuspiciousOperation
(too many fields or files, a body over DATA_UPLOAD_MAX_MEMORY_SIZE, a bad Host header, an
over-long redirect) and every malformed multipart body with the exception's traceback, and any
client can send them by the thousand. Each is sent here to every interface it applies to, and
the log is read as the operator reads it: what settings.LOGGING's handler writes.
"""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from config import views
from reports.models import ApiKey as ReportsApiKey
from tests.pastes.factories import issue_key

pytestmark = [pytest.mark.django_db]

TOO_MANY_FIELDS = "&".join(f"a{n}=1" for n in range(3000))  # DATA_UPLOAD_MAX_NUMBER_FIELDS is 1,000
FORM = "application/x-www-form-urlencoded"
MULTIPART = "multipart/form-data; boundary=x"
FILE_PART = b'--x\r\nContent-Disposition: form-data; name="f%d"; filename="a.txt"\r\n\r\n1\r\n'
TOO_MANY_FILES = b"".join(FILE_PART % n for n in range(150)) + b"--x--\r\n"  # DATA_UPLOAD_MAX_NUMBER_FILES is 100
TOO_LARGE_FORM = "a=" + "x" * 3_000_000  # DATA_UPLOAD_MAX_MEMORY_SIZE is 2.5 MB


@pytest.fixture
def clients(user) -> dict[str, Client]:
    """A client of each interface, signed in as it expects; "anonymous" and "staff" for the pages and the admin."""
    _, reports_key = ReportsApiKey.issue(user=user)
    session = Client()
    session.force_login(user)
    staff = Client()
    staff.force_login(get_user_model().objects.create_superuser("root", password="root-password"))
    return {
        "reports": Client(HTTP_AUTHORIZATION=f"Bearer {reports_key}", HTTP_ACCEPT="application/json"),
        "pastes": Client(HTTP_AUTHORIZATION=issue_key(user)),
        "session": session,
        "staff": staff,
        "anonymous": Client(),
    }


# (client, method, path, content type, body, extra headers) → the status answered today.
REFUSED = {
    "too many query fields, A": ("reports", "get", f"/api/v1/reports?{TOO_MANY_FIELDS}", None, None, {}, 400),
    "too many query fields, B": ("pastes", "get", f"/pastes/?{TOO_MANY_FIELDS}", None, None, {}, 400),
    "too many query fields, C": ("session", "get", f"/s/export?{TOO_MANY_FIELDS}", None, None, {}, 400),
    "too many query fields, pages": ("session", "get", f"/reports/?{TOO_MANY_FIELDS}", None, None, {}, 400),
    "too many query fields, admin": ("staff", "get", f"/admin/auth/user/?{TOO_MANY_FIELDS}", None, None, {}, 400),
    "too many form fields, A": ("reports", "post", "/api/v1/reports", FORM, TOO_MANY_FIELDS, {}, 400),
    "too many form fields, C": ("anonymous", "post", "/s/login", FORM, TOO_MANY_FIELDS, {}, 400),
    "too many files, A": ("reports", "post", "/api/v1/reports", MULTIPART, TOO_MANY_FILES, {}, 400),
    "too many files, C": ("session", "post", "/s/import", MULTIPART, TOO_MANY_FILES, {}, 400),
    "too large a form, C": ("anonymous", "post", "/s/login", FORM, TOO_LARGE_FORM, {}, 400),
    "too large a form, pages": ("session", "post", "/reports/new", FORM, TOO_LARGE_FORM, {}, 400),
    "malformed multipart, C": ("anonymous", "post", "/s/login", "multipart/form-data", b"x", {}, 400),
    "malformed multipart, pages": ("session", "post", "/pastes/new", "multipart/form-data", b"x", {}, 400),
    "bad Host header, A": ("reports", "get", "/api/v1/reports", None, None, {"HTTP_HOST": "evil.example"}, 400),
    "bad Host header, B": ("pastes", "get", "/pastes/", None, None, {"HTTP_HOST": "evil.example"}, 400),
    "bad Host header, C": ("anonymous", "get", "/s/", None, None, {"HTTP_HOST": "evil.example"}, 400),
    "bad Host header, pages": ("session", "get", "/reports/", None, None, {"HTTP_HOST": "evil.example"}, 400),
    "bad Host header, admin": ("staff", "get", "/admin/", None, None, {"HTTP_HOST": "bad host\nforged"}, 400),
}


@pytest.mark.parametrize("case", REFUSED)
def test_a_refused_request_is_one_line_in_the_log_without_a_traceback(clients, operator_log, case):
    client, method, path, content_type, body, headers, status = REFUSED[case]
    request = getattr(clients[client], method)
    arguments = {} if body is None else {"data": body, "content_type": content_type}

    response = request(path, **arguments, **headers)

    lines = operator_log.getvalue().splitlines()
    assert response.status_code == status, response.content[:300]
    assert len(lines) == 1, operator_log.getvalue()[:3000]
    assert path.split("?")[0] in lines[0]


def test_the_line_names_the_exception_the_request_and_the_answer(clients, operator_log):
    clients["anonymous"].get("/s/", HTTP_HOST="evil.example")

    assert operator_log.getvalue() == (
        "Invalid HTTP_HOST header: 'evil.example'. You may need to add 'evil.example' to ALLOWED_HOSTS."
        " (DisallowedHost on GET /s/, answered 400)\n"
    )


SIGN_IN_REDIRECTS = ["/s/stats", "/pastes/new", "/reports/", "/admin/"]


@pytest.mark.parametrize("path", SIGN_IN_REDIRECTS)
def test_a_sign_in_redirect_from_a_long_address_logs_nothing(clients, operator_log, path):
    # It was a 400 (DisallowedRedirect) with a traceback: now the sign-in page, without `next`.
    response = clients["anonymous"].get(f"{path}?{TOO_MANY_FIELDS}")

    assert response.status_code == 302
    assert operator_log.getvalue() == ""


BAD_COOKIES = 'sessionid="\xff\\"; csrftoken=;;; messages=abc:def; sessionid=' + "a" * 5000


@pytest.mark.parametrize(
    ("client", "path"),
    [("reports", "/api/v1/reports"), ("pastes", "/pastes/"), ("anonymous", "/s/"), ("anonymous", "/admin/login/")],
)
def test_bad_cookies_are_ignored_without_a_line(clients, operator_log, client, path):
    response = clients[client].get(path, HTTP_COOKIE=BAD_COOKIES)

    assert response.status_code == 200
    assert operator_log.getvalue() == ""


def test_a_bad_csrf_cookie_is_a_403_logged_without_a_traceback(operator_log):
    # Two lines, none with a traceback: the CSRF check's reason, then the 403 it led to.
    response = Client(enforce_csrf_checks=True).post("/s/login", {"login": "a"}, HTTP_COOKIE="csrftoken=bad")

    assert response.status_code == 403
    assert operator_log.getvalue().splitlines() == [
        "Forbidden (CSRF cookie has incorrect length.): /s/login",
        "Forbidden: /s/login",
    ]


def test_a_refused_request_s_line_cannot_be_split_by_its_path(clients, operator_log):
    clients["pastes"].get(f"/pastes/%0Aforged?{TOO_MANY_FIELDS}")

    assert len(operator_log.getvalue().splitlines()) == 1


def test_a_server_error_still_logs_its_traceback(monkeypatch, operator_log):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(views, "render", broken)

    response = Client(raise_request_exception=False).get("/")

    log = operator_log.getvalue()
    assert response.status_code == 500
    assert log.startswith("Internal Server Error: /\nTraceback (most recent call last):")
    assert "RuntimeError: a bug" in log
