"""Fixtures shared by every app's tests."""

import pytest

# So that a failed check in the error helpers shows both sides, as one in a test module does.
# Here, before any test module is collected: the foundation tests import them too.
pytest.register_assert_rewrite("tests.reports.asserts", "tests.pastes.asserts", "tests.shortener.asserts")

# The log_without_tracebacks marker (tests/logs.py).
pytest_plugins = ["tests.logs"]

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.cache import caches  # noqa: E402
from django.db import OperationalError  # noqa: E402
from django.test import Client  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from reports.tasks import forget_unclaimed  # noqa: E402
from shortener import fastpath  # noqa: E402
from tests.database_holders import release_test_database  # noqa: E402


@pytest.fixture(autouse=True)
def _test_environment(settings):
    # Templates use {% static %}; the manifest storage would need collectstatic first.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    # Whitenoise finds files through the finders, as in development, instead of STATIC_ROOT.
    settings.WHITENOISE_USE_FINDERS = True
    settings.WHITENOISE_AUTOREFRESH = True
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # A writer process would connect to the database DATABASE_URL names, not the test's:
    # test_visit_writer.py points it at the test database.
    settings.SHORTENER_VISIT_WRITER_PROCESS = False
    # Rate-limit counters, cached lookups and kept answers must not leak from one test into the next.
    for cache in caches.all():
        cache.clear()
    yield
    for cache in caches.all():
        cache.clear()


FLUSH_ATTEMPTS = 5


@pytest.fixture(scope="session", autouse=True)
def _flush_outlasts_a_deadlock():
    """Empty the database again when PostgreSQL aborted the emptying to break a deadlock.

    Servers and workers that tests start (tests/servers.py) keep writing from threads of their
    own after a response: the visit flusher writes five tables in one transaction. A transactional
    test's teardown truncates every table in one statement, locking them in another order, and
    when the two meet PostgreSQL aborts one of them. The flusher retries its batch; so does this.
    """
    from django.db.backends.postgresql.operations import DatabaseOperations
    from psycopg.errors import DeadlockDetected

    execute_sql_flush = DatabaseOperations.execute_sql_flush

    def retried(self, sql_list):
        for attempt in range(1, FLUSH_ATTEMPTS + 1):
            try:
                return execute_sql_flush(self, sql_list)
            except OperationalError as error:
                if not isinstance(error.__cause__, DeadlockDetected) or attempt == FLUSH_ATTEMPTS:
                    raise

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DatabaseOperations, "execute_sql_flush", retried)
        yield


@pytest.fixture(scope="session", autouse=True)
def _compiled_catalogs():
    """The translations compiled, as `make test` does first, for a pytest started on its own (changed catalogs only)."""
    from django.core.management import call_command

    call_command("compile_catalogs", verbosity=0)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test databases; before they are dropped, whoever still holds one is named."""
    yield
    with django_db_blocker.unblock():
        release_test_database()


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    # SQLite tests run on a file, as deployments do: in-memory SQLite shared between threads
    # (the analysis worker's) fails at once with "table is locked" instead of waiting its turn.
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] in ("django.db.backends.sqlite3", "common.sqlite_backend"):
        database.setdefault("TEST", {})["NAME"] = str(tmp_path_factory.mktemp("database") / "test.sqlite3")


@pytest.fixture(autouse=True)
def _fresh_health():
    # /healthz remembers whether analyses are unclaimed for a second; each test sets its own queue.
    forget_unclaimed()


@pytest.fixture(autouse=True)
def _fastpath_isolated():
    # Any test may follow a short link (the URL-layout tests do too). Lookups and visits go
    # through the shortener's fast path as in production, without its threads: their own
    # connections cannot see the test's transaction, and would outlive the test database.
    # Tests flush visits (flush_visits) before reading counters; test_link_cache.py and
    # test_visit_buffer.py run the threads of instances of their own.
    with fastpath.isolated():
        yield


@pytest.fixture(scope="module")
def redis_server():
    """A redis-server of the module's own (tests/servers.py), for tests that stop and start it."""
    from tests.servers import RedisServer

    server = RedisServer()
    yield server
    server.stop()


@pytest.fixture
def user(db):
    return get_user_model().objects.create_user(username="alice", password="alice-password")


@pytest.fixture
def other_user(db):
    return get_user_model().objects.create_user(username="bob", password="bob-password")


@pytest.fixture
def alice_client(user) -> Client:
    """Alice's browser, signed in (force_login: no sign-in form, no counted attempt)."""
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def bob_client(other_user) -> Client:
    client = Client()
    client.force_login(other_user)
    return client


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


def pytest_collection_modifyitems(config, items):
    from django.db import connection

    if connection.vendor == "postgresql":
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL: run with DATABASE_URL=postgres://…")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium driven by Playwright (Playwright downloads no browser of its own)."""
    import os

    if not os.path.exists(CHROMIUM):
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium package")
        pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium to run browser tests")
    # Playwright's sync API runs an event loop in this thread; the tests still
    # talk to the database synchronously around it, which Django must allow.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()
