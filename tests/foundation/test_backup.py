"""manage.py backup and restore (issue 45, item 6): a snapshot taken under write load, restored into a
fresh database, holds every row written before it and is consistent, and the restored service serves it.

On SQLite (a file, the online backup API) and PostgreSQL (pg_dump, a fresh database for the restore).
"""

import json
import sqlite3
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

import httpx
import psycopg
import pytest
from django.db import connection

from tests.polling import eventually
from tests.servers import BASE_DIR, Server, served_database_url, server_env

SETUP = """
import json
from django.contrib.auth import get_user_model
from pastes.models import ApiKey
from shortener.models import ShortLink
user = get_user_model().objects.create_user(username="backup-owner", password="x")
links = [ShortLink.objects.create(owner=user, url=f"https://example.com/{n}", code=f"bkup{n:04d}") for n in range(5)]
print(json.dumps({"key": ApiKey.issue(user=user)[1], "codes": [link.code for link in links]}))
"""

# The snapshot's own consistency: each link's counter is its visits' rows, written in one transaction.
COUNTERS = """
import json
from collections import Counter
from pastes.models import Paste
from shortener.models import ShortLink, Visit
visits = Counter(Visit.objects.values_list("link_id", flat=True))
links = {l.code: [l.counter, visits[l.pk]] for l in ShortLink.objects.all()}
print(json.dumps({"links": links, "pastes": sorted(Paste.objects.values_list("id", flat=True))}))
"""


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    # Generous: a migrate took over two minutes on the loaded 2-core machine.
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=600
    )


def manage(env: dict[str, str], *args: str) -> str:
    result = run(env, *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def write_load(url: str, key: str, codes: list[str], stop: threading.Event, created: list) -> None:
    """Follow the links as new visitors and create pastes until told to stop; note each paste created (and when)."""
    with httpx.Client(base_url=url, timeout=30) as client:
        n = 0
        while not stop.is_set():
            n += 1
            client.get(f"/s/{codes[n % len(codes)]}", headers={"User-Agent": f"Mozilla/5.0 load-{id(created)}-{n}"})
            response = client.post(
                "/pastes/create", json={"name": f"load {n}", "content": f"row {n}"}, headers={"Authorization": key}
            )
            if response.status_code == 200:
                created.append((time.monotonic(), response.json()["id"]))


def backup_under_load_then_restore(source_env: dict[str, str], target_env: dict[str, str], tmp_path: Path) -> None:
    setup = json.loads(manage(source_env, "shell", "-c", SETUP).strip().splitlines()[-1])
    server = Server(source_env, workers=2, ready_timeout=120)
    stop, created = threading.Event(), []
    writers = [
        threading.Thread(target=write_load, args=(server.url, setup["key"], setup["codes"], stop, created))
        for _ in range(3)
    ]
    try:
        for writer in writers:
            writer.start()
        eventually(lambda: len(created) >= 20, timeout=120, message=server.output)
        started = time.monotonic()
        archive = tmp_path / "backups" / "service.tar.gz"
        result = run(source_env, "backup", str(archive))
        finished = time.monotonic()
        assert result.returncode == 0, result.stderr
        written_during = [paste for at, paste in created if at > finished]
        # The load went on after the backup too.
        eventually(lambda: len(created) >= len(written_during) + 5, timeout=120, message=server.output)
    finally:
        stop.set()
        for writer in writers:
            writer.join()
        server.stop()
    before = {paste for at, paste in created if at < started}
    after_backup = {paste for at, paste in created if at > finished}
    with tarfile.open(archive) as opened:
        manifest = json.loads(opened.extractfile("manifest.json").read())
    assert manifest["database"] == ("postgresql" if source_env["DATABASE_URL"].startswith("postgres") else "sqlite")

    # Not into a database that has tables: the source itself.
    refused = run(source_env, "restore", str(archive))
    assert refused.returncode != 0
    assert "not empty" in refused.stderr

    result = run(target_env, "restore", str(archive))
    assert result.returncode == 0, result.stderr
    restored = json.loads(manage(target_env, "shell", "-c", COUNTERS).strip().splitlines()[-1])
    # Every paste answered before the backup began is there; none answered after it ended.
    assert before <= set(restored["pastes"])
    assert not after_backup & set(restored["pastes"])
    # One moment's copy: every link's counter is exactly its visit rows, and some visits were made.
    assert all(counter == visits for counter, visits in restored["links"].values()), restored["links"]
    assert sum(counter for counter, _ in restored["links"].values()) > 0
    assert run(target_env, "migrate", "--check").returncode == 0  # the schema came along

    restored_server = Server(target_env, workers=1, ready_timeout=120)
    try:
        for paste in sorted(before)[:10]:
            response = httpx.get(
                f"{restored_server.url}/pastes/paste/@{paste}", headers={"Authorization": setup["key"]}
            )
            assert response.status_code == 200, response.text
            assert response.json()["content"].startswith("row ")
        response = httpx.get(f"{restored_server.url}/s/{setup['codes'][0]}")
        assert response.status_code == 302
        assert response.headers["Location"] == "https://example.com/0"
    finally:
        restored_server.stop()


@pytest.mark.timeout(900)
def test_sqlite_backup_under_load_restores_into_a_fresh_file(tmp_path):
    source_env = server_env(f"sqlite:///{tmp_path / 'source.sqlite3'}", SHORTENER_VISIT_FLUSH_SECONDS="0.2")
    manage(source_env, "migrate", "--noinput", "-v0")
    target_env = {**source_env, "DATABASE_URL": f"sqlite:///{tmp_path / 'restored.sqlite3'}"}

    backup_under_load_then_restore(source_env, target_env, tmp_path)

    with sqlite3.connect(tmp_path / "restored.sqlite3") as restored:
        assert restored.execute("PRAGMA integrity_check").fetchone() == ("ok",)


@pytest.mark.postgres
@pytest.mark.timeout(900)
@pytest.mark.django_db(transaction=True)
def test_postgresql_backup_under_load_restores_into_a_fresh_database(tmp_path):
    source_url = served_database_url(connection)
    fresh = f"{connection.settings_dict['NAME']}_restored"
    admin = source_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as pg:
        pg.execute(f'DROP DATABASE IF EXISTS "{fresh}"')
        pg.execute(f'CREATE DATABASE "{fresh}"')
    source_env = server_env(source_url, SHORTENER_VISIT_FLUSH_SECONDS="0.2")
    target_env = {**source_env, "DATABASE_URL": source_url.rsplit("/", 1)[0] + f"/{fresh}"}
    try:
        backup_under_load_then_restore(source_env, target_env, tmp_path)
    finally:
        with psycopg.connect(admin, autocommit=True) as pg:
            pg.execute(f'DROP DATABASE IF EXISTS "{fresh}" WITH (FORCE)')
