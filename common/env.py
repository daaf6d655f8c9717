"""Typed readers for environment variables.

Every value that differs between deployments is read through one of these, so a
bad value stops start-up with a message naming the variable instead of surfacing
later as a confusing error.
"""

import os
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

TRUE_VALUES = {"1", "true", "yes", "on"}
FALSE_VALUES = {"0", "false", "no", "off", ""}

SUPPORTED_DATABASE_SCHEMES = {"sqlite", "postgres", "postgresql", "pgsql"}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in TRUE_VALUES:
        return True
    if value in FALSE_VALUES:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false, yes/no, on/off), not {raw!r}.")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, not {raw!r}.") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}.")
    return value


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, not {raw!r}.") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}.")
    return value


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default or [])
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_secret(name: str, default: str = "") -> str:
    """Read NAME, or the contents of the file named by NAME_FILE (for Docker/systemd secrets)."""
    path = os.environ.get(f"{name}_FILE")
    if path:
        try:
            return Path(path).read_text().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE points to an unreadable file: {exc}.") from None
    return os.environ.get(name, default)


def url_with_query(url: str, **params: object) -> str:
    """`url` with `params` added to its query string; a parameter the URL already sets is kept."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    query = {name: str(value) for name, value in params.items()} | query
    return parts._replace(query=urlencode(query)).geturl()


def env_database(name: str, default: str) -> dict:
    """Parse a database URL into Django's DATABASES entry (SQLite or PostgreSQL only).

    NAME_FILE may hold the URL instead, as for any secret: it carries the database password.
    """
    url = env_secret(name) or default
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme not in SUPPORTED_DATABASE_SCHEMES:
        raise ImproperlyConfigured(
            f"{name} has an unsupported scheme {scheme or url!r}: use sqlite:///path or postgres://user@host/db."
        )
    try:
        config = dj_database_url.parse(url)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} is not a valid database URL: {exc}.") from None
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # Django's backend, waiting for the write lock in short turns (common/sqlite_backend).
        config["ENGINE"] = "common.sqlite_backend"
        # WAL lets readers run beside a writer; IMMEDIATE takes the write lock at
        # BEGIN so that two writers queue instead of failing mid-transaction.
        config["OPTIONS"] = {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
        # Each request thread keeps its connection too: opened per request (and the PRAGMAs
        # run again), it cost /healthz most of its time on SQLite.
        config["CONN_MAX_AGE"] = env_int("DATABASE_CONN_MAX_AGE", 600, minimum=0)
    else:
        # Django's, with a health check that asks the socket before the server (common/postgresql_backend).
        config["ENGINE"] = "common.postgresql_backend"
        config["CONN_MAX_AGE"] = env_int("DATABASE_CONN_MAX_AGE", 600, minimum=0)
        config["CONN_HEALTH_CHECKS"] = True
    return config


# Secrets `make run` generates in the checkout, and the variables they stand in for.
LOCAL_SECRET_FILES = {"SECRET_KEY": ".secret_key", "SHORTENER_ADMINPWD": ".shortener_adminpwd"}


def use_local_secret_files(base_dir: Path) -> None:
    """Point NAME_FILE at the secrets `make run` made in `base_dir`, unless NAME is configured.

    So that `manage.py` commands work after `make run` as they are written in the README.
    A deployment that sets its own secrets, or never ran `make run`, is not affected.
    """
    for name, filename in LOCAL_SECRET_FILES.items():
        configured = [name, f"{name}_FILE"]
        if name == "SHORTENER_ADMINPWD":
            configured += ["SHORTENER_HASHED_ADMINPWD", "SHORTENER_HASHED_ADMINPWD_FILE"]
        path = base_dir / filename
        if not any(os.environ.get(variable) for variable in configured) and path.is_file():
            os.environ[f"{name}_FILE"] = str(path)
