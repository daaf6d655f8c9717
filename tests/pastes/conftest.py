import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from rest_framework.test import APIClient

from tests.pastes.attachment_fixtures import attachment_store, s3_endpoint  # noqa: F401 (fixtures)
from tests.pastes.factories import PasteFactory, issue_key
from tests.servers import free_port


@pytest.fixture
def owner_key(user) -> str:
    return issue_key(user)


@pytest.fixture
def other_key(other_user) -> str:
    return issue_key(other_user)


@pytest.fixture
def owner_client(owner_key) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=owner_key)
    return client


@pytest.fixture
def other_client(other_key) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=other_key)
    return client


@pytest.fixture
def anon_client() -> APIClient:
    return APIClient()


@pytest.fixture
def clients(owner_client, other_client, anon_client) -> dict[str, APIClient]:
    return {"owner": owner_client, "other": other_client, "anonymous": anon_client}


@pytest.fixture
def paste(user):
    return PasteFactory(owner=user, name="hello", content="Hello, world!")


@pytest.fixture
def other_site():
    """Serves `other_site.pages["html"]` at /, from another port: a page of somebody else's that embeds a paste."""
    pages: dict[str, str] = {}

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get("html", "").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    site = ThreadingHTTPServer(("127.0.0.1", free_port()), Page)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    site.pages = pages
    yield site
    site.shutdown()
    site.server_close()
