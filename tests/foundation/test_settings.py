"""Start-up refuses bad environment values with a message naming the variable."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from common.env import env_bool, env_database, env_int, env_list, env_secret, use_local_secret_files

PROJECT_DIR = Path(__file__).resolve().parents[2]


def start_django(**env: str) -> subprocess.CompletedProcess:
    return import_settings(code="import django; django.setup()", **env)


def import_settings(code: str = "import config.settings", **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DEBUG", "SECRET_KEY", "REDIS_URL"}}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=PROJECT_DIR,
        env={**clean, "SECRET_KEY": "x" * 50, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_settings_import_with_defaults():
    result = import_settings()

    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("DATABASE_URL", "mysql://root@localhost/db"),
        ("DATABASE_URL", "nonsense"),
        ("DEBUG", "maybe"),
        ("REPORTS_RATE_LIMIT", "sixty"),
        ("PASTES_DEFAULT_MAX_CHARS", "1e6"),
        ("SECURE_HSTS_SECONDS", "-1"),
        ("REPORTS_FETCH_TIMEOUT", "soon"),
        ("TASKS_BACKEND", "celery"),
        ("REPORTS_ANALYSIS_WAIT", "-1"),
        ("REPORTS_ANALYSIS_WAIT_SLOTS", "many"),
        ("REPORTS_ANALYSIS_LEASE", "0"),
        ("REPORTS_WORKER_THREADS", "0"),
        ("LANGUAGES", "en,pt"),
        ("LANGUAGES", "fr,de"),
    ],
)
def test_bad_value_stops_start_up_naming_the_variable(variable, value):
    result = import_settings(**{variable: value})

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert variable in result.stderr


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("REPORTS_THRESHOLDS", "{not json"),
        ("REPORTS_THRESHOLDS", '{"no_such_threshold": 1}'),
        ("REPORTS_IMPORTANCE_WEIGHTS", '{"high": -1}'),
        ("REPORTS_RATING_BANDS", "[80, 50]"),
    ],
)
def test_bad_analysis_setting_stops_start_up_naming_the_variable(variable, value):
    result = start_django(DJANGO_SETTINGS_MODULE="config.settings", **{variable: value})

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert variable in result.stderr


def test_rq_task_backend_without_redis_stops_start_up_naming_redis_url():
    result = import_settings(TASKS_BACKEND="rq")

    assert result.returncode != 0
    assert "TASKS_BACKEND=rq needs REDIS_URL" in result.stderr


@pytest.mark.parametrize(
    ("redis_url", "queue_url"),
    [
        ("redis://cache.internal:6379/2", "redis://cache.internal:6379/2?socket_connect_timeout=0.5"),
        # One the operator set in REDIS_URL stays theirs.
        (
            "redis://:pw@cache.internal/0?socket_connect_timeout=3",
            "redis://:pw@cache.internal/0?socket_connect_timeout=3",
        ),
    ],
)
def test_rq_connects_to_redis_within_redis_timeout(redis_url, queue_url):
    result = import_settings(
        code="import config.settings as s; print(s.RQ_QUEUES['default']['URL'])",
        TASKS_BACKEND="rq",
        REDIS_URL=redis_url,
        REDIS_TIMEOUT="0.5",
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == queue_url


def test_missing_secret_key_stops_start_up_when_debug_is_off():
    result = import_settings(SECRET_KEY="", DEBUG="0")

    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_debug_alone_is_enough_for_development():
    result = import_settings(SECRET_KEY="", DEBUG="1")

    assert result.returncode == 0, result.stderr


def test_env_bool_accepts_the_usual_spellings(monkeypatch):
    monkeypatch.setenv("FLAG", "Yes")
    assert env_bool("FLAG") is True
    monkeypatch.setenv("FLAG", "off")
    assert env_bool("FLAG", True) is False
    monkeypatch.delenv("FLAG")
    assert env_bool("FLAG", True) is True


def test_env_int_rejects_values_below_the_minimum(monkeypatch):
    monkeypatch.setenv("WORKERS", "0")

    with pytest.raises(ImproperlyConfigured, match="WORKERS must be at least 1"):
        env_int("WORKERS", 4, minimum=1)


def test_env_list_splits_on_commas_and_drops_blanks(monkeypatch):
    monkeypatch.setenv("HOSTS", " a.example, b.example ,,")

    assert env_list("HOSTS") == ["a.example", "b.example"]


def test_env_secret_reads_the_file_variant(monkeypatch, tmp_path):
    secret_file = tmp_path / "secret"
    secret_file.write_text("from-a-file\n")
    monkeypatch.setenv("API_SECRET", "from-the-env")
    monkeypatch.setenv("API_SECRET_FILE", str(secret_file))

    assert env_secret("API_SECRET") == "from-a-file"


def test_env_secret_names_an_unreadable_file(monkeypatch, tmp_path):
    monkeypatch.setenv("API_SECRET_FILE", str(tmp_path / "missing"))

    with pytest.raises(ImproperlyConfigured, match="API_SECRET_FILE"):
        env_secret("API_SECRET")


def test_postgres_urls_use_persistent_health_checked_connections(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgres://app:pw@db.internal:5433/webtools")

    config = env_database("DATABASE_URL", "sqlite:///unused")

    assert config["ENGINE"] == "common.postgresql_backend"  # Django's, health-checked without a round trip
    assert (config["HOST"], config["PORT"], config["NAME"]) == ("db.internal", 5433, "webtools")
    assert config["CONN_MAX_AGE"] == 600
    assert config["CONN_HEALTH_CHECKS"] is True


def test_sqlite_is_the_default_database(monkeypatch, tmp_path):
    monkeypatch.delenv("DATABASE_URL", raising=False)

    config = env_database("DATABASE_URL", f"sqlite:///{tmp_path / 'db.sqlite3'}")

    assert config["ENGINE"] == "common.sqlite_backend"  # Django's, waiting for the write lock in short turns
    assert config["NAME"] == str(tmp_path / "db.sqlite3")
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    # A request thread keeps its connection, as with PostgreSQL (issue 20, item 5).
    assert config["CONN_MAX_AGE"] == 600


def test_redis_url_switches_the_cache_to_redis():
    result = subprocess.run(
        [sys.executable, "-c", "from config import settings; print(settings.CACHES['default']['BACKEND'])"],
        cwd=PROJECT_DIR,
        env={**os.environ, "SECRET_KEY": "x" * 50, "REDIS_URL": "redis://127.0.0.1:6379/0"},
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.stdout.strip() == "common.cache.DegradingRedisCache"


def clear_secret_variables(monkeypatch) -> None:
    # setenv first, so that monkeypatch removes at teardown what use_local_secret_files sets: a
    # SECRET_KEY_FILE left behind made later tests (the deploy check) read the test's short key.
    for name in ("SECRET_KEY", "SHORTENER_ADMINPWD", "SHORTENER_HASHED_ADMINPWD"):
        for variable in (name, f"{name}_FILE"):
            monkeypatch.setenv(variable, "")
            monkeypatch.delenv(variable)


def test_manage_py_finds_the_secrets_make_run_generated(tmp_path, monkeypatch):
    clear_secret_variables(monkeypatch)
    (tmp_path / ".secret_key").write_text("generated-key\n")
    (tmp_path / ".shortener_adminpwd").write_text("generated-password\n")

    use_local_secret_files(tmp_path)

    assert env_secret("SECRET_KEY") == "generated-key"
    assert env_secret("SHORTENER_ADMINPWD") == "generated-password"


def test_configured_secrets_win_over_the_generated_files(tmp_path, monkeypatch):
    clear_secret_variables(monkeypatch)
    monkeypatch.setenv("SECRET_KEY", "from-the-environment")
    monkeypatch.setenv("SHORTENER_HASHED_ADMINPWD", "31f7a65e315586ac198bd798b6629ce4903d0899476d5741a9f32e2e521b6a66")
    (tmp_path / ".secret_key").write_text("generated-key\n")
    (tmp_path / ".shortener_adminpwd").write_text("generated-password\n")

    use_local_secret_files(tmp_path)

    assert env_secret("SECRET_KEY") == "from-the-environment"
    assert env_secret("SHORTENER_ADMINPWD") == ""


def test_without_generated_files_nothing_is_set(tmp_path, monkeypatch):
    clear_secret_variables(monkeypatch)

    use_local_secret_files(tmp_path)

    assert "SECRET_KEY_FILE" not in os.environ
    assert "SHORTENER_ADMINPWD_FILE" not in os.environ
