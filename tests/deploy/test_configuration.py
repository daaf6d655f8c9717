"""What the image and the compose files promise, checked without building anything (issue 45, items 1-2).

The image is configured only through the environment, a secret also through NAME_FILE (compose's
`secrets:`, Docker/Kubernetes secret files): the database and Redis URLs carry passwords, so they
have file variants too. tests/deploy/test_compose.py builds and runs the real thing.
"""

import os
import re
import subprocess
import sys

import pytest
import yaml

from common.env import env_database
from config import __version__
from tests.servers import BASE_DIR


def settings_value(expression: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "MEDIA_ROOT"}}
    return subprocess.run(
        [sys.executable, "-c", f"from django.conf import settings; import django; django.setup(); print({expression})"],
        cwd=BASE_DIR,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", "SECRET_KEY": "x" * 50, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_database_url_can_come_from_a_file(monkeypatch, tmp_path):
    secret = tmp_path / "database_url"
    secret.write_text("postgres://app:s3cret@db.internal:5433/webtools\n")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("DATABASE_URL_FILE", str(secret))

    config = env_database("DATABASE_URL", "sqlite:///unused")

    assert (config["HOST"], config["PASSWORD"], config["NAME"]) == ("db.internal", "s3cret", "webtools")


def test_an_unreadable_database_url_file_stops_start_up_naming_it(tmp_path):
    result = settings_value("1", DATABASE_URL_FILE=str(tmp_path / "missing"))

    assert result.returncode != 0
    assert "DATABASE_URL_FILE points to an unreadable file" in result.stderr


def test_the_redis_url_can_come_from_a_file(tmp_path):
    secret = tmp_path / "redis_url"
    secret.write_text("redis://:pw@127.0.0.1:6379/3\n")

    result = settings_value("settings.REDIS_URL, settings.CACHES['default']['BACKEND']", REDIS_URL_FILE=str(secret))

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["redis://:pw@127.0.0.1:6379/3", "common.cache.DegradingRedisCache"]


def test_uploaded_files_go_where_media_root_says(tmp_path):
    result = settings_value("settings.MEDIA_ROOT", MEDIA_ROOT=str(tmp_path / "media"))

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(tmp_path / "media")


def test_the_image_label_names_the_service_version():
    containerfile = (BASE_DIR / "Containerfile").read_text()

    assert re.search(r"^ARG VERSION=(\S+)$", containerfile, re.MULTILINE).group(1) == __version__
    assert 'org.opencontainers.image.version="${VERSION}"' in containerfile
    assert re.search(r"^USER webtools$", containerfile, re.MULTILINE)
    assert "HEALTHCHECK" in containerfile and "/healthz" in containerfile


def load(name: str) -> dict:
    return yaml.safe_load((BASE_DIR / name).read_text())


def test_compose_migrates_once_before_web_and_worker_start():
    services = load("compose.yaml")["services"]

    assert set(services) == {"db", "redis", "migrate", "web", "worker"}
    assert services["migrate"]["command"] == ["migrate"] and services["migrate"]["restart"] == "no"
    for name in ("web", "worker"):
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
        assert services[name]["init"] is True
    assert services["worker"]["build"]["target"] == "render"
    assert {"db", "redis", "web"} <= {name for name, service in services.items() if "test" in service["healthcheck"]}
    volumes = {volume.split(":")[1] for service in services.values() for volume in service.get("volumes", [])}
    assert {"/var/lib/postgresql/data", "/data"} <= volumes


@pytest.mark.parametrize("name", ["compose.yaml", "compose.sqlite.yaml"])
def test_each_compose_file_asks_for_a_secret_key_instead_of_shipping_one(name):
    text = (BASE_DIR / name).read_text()

    assert "SECRET_KEY: ${SECRET_KEY:?" in text
    assert all(
        service.get("init") is True
        for service in load(name)["services"].values()
        if "image" in service and "webtools" in service["image"]
    )


def test_the_sqlite_setup_is_one_container_serving_web_and_worker():
    services = load("compose.sqlite.yaml")["services"]

    assert list(services) == ["webtools"]
    assert services["webtools"]["command"] == ["serve"] and services["webtools"]["volumes"] == ["data:/data"]
