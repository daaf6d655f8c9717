"""A backup of the whole service in one archive, taken while it runs, and its restore into an empty database.

    manage.py backup /backups/webtools-2026-11-28.tar.gz
    manage.py restore /backups/webtools-2026-11-28.tar.gz    # into an empty database only

The archive (gzipped tar) holds `manifest.json` (format, the service's version, the database's
kind, the newest migration of each app), the database and, when MEDIA_ROOT is set, `media/`:

- SQLite: a copy by SQLite's online backup API (sqlite3.Connection.backup), in one step, so it is
  the database as one moment saw it, while the service goes on writing (each writer waits for
  the copy's read lock, a few milliseconds per 10 MB, no longer);
- PostgreSQL: `pg_dump --format=custom`, which reads every table in one repeatable-read snapshot
  and blocks no reader or writer (only schema changes wait for it); restored with `pg_restore`.
  Both tools must be installed and at least the server's major version.

The archive is written beside PATH under a temporary name and renamed at the end, so PATH is
either a whole backup or absent. A restore refuses a database that has any table: it makes an
instance from nothing (a fresh database, then `manage.py migrate` brings an older backup's
schema up to this version), and never mixes two.
"""

import datetime
import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder

from config import __version__

FORMAT = 1
MANIFEST = "manifest.json"
SQLITE_NAME = "database.sqlite3"
PG_NAME = "database.pgdump"
MEDIA = "media"


def _pg_environment() -> tuple[dict[str, str], list[str]]:
    """The environment and connection arguments of pg_dump / pg_restore for the default database."""
    params = settings.DATABASES["default"]
    env = {**os.environ}
    if params.get("PASSWORD"):
        env["PGPASSWORD"] = str(params["PASSWORD"])
    args = []
    for option, key in (("--host", "HOST"), ("--port", "PORT"), ("--username", "USER")):
        if params.get(key):
            args.append(f"{option}={params[key]}")
    sslmode = (params.get("OPTIONS") or {}).get("sslmode")
    if sslmode:
        env["PGSSLMODE"] = sslmode
    return env, args


def _run(command: list[str], env: dict[str, str]) -> None:
    try:
        result = subprocess.run(command, env=env, capture_output=True, text=True)
    except FileNotFoundError:
        raise CommandError(f"{command[0]} is not installed: install PostgreSQL's client programs.") from None
    if result.returncode != 0:
        raise CommandError(f"{command[0]} failed: {result.stderr.strip()}")


def _migrations() -> dict[str, str]:
    newest: dict[str, str] = {}
    for app, name in MigrationRecorder(connection).migration_qs.order_by("app", "name").values_list("app", "name"):
        newest[app] = name
    return newest


def backup(path: Path) -> dict:
    """Write the archive at `path`; return its manifest."""
    vendor = connection.vendor
    if vendor not in ("sqlite", "postgresql"):
        raise CommandError(f"Backups support SQLite and PostgreSQL, not {vendor}.")
    path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    manifest = {
        "format": FORMAT,
        "version": __version__,
        "database": vendor,
        "created_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "migrations": _migrations(),
        "media": bool(settings.MEDIA_ROOT and Path(settings.MEDIA_ROOT).is_dir()),
    }
    with tempfile.TemporaryDirectory(prefix="backup-", dir=path.parent) as work:
        work_dir = Path(work)
        if vendor == "sqlite":
            database = work_dir / SQLITE_NAME
            source = sqlite3.connect(f"file:{settings.DATABASES['default']['NAME']}?mode=ro", uri=True)
            target = sqlite3.connect(database)
            try:
                source.backup(target)  # every page in one step: one consistent moment
            finally:
                target.close()
                source.close()
        else:
            database = work_dir / PG_NAME
            env, args = _pg_environment()
            name = settings.DATABASES["default"]["NAME"]
            dump = ["pg_dump", "--format=custom", "--no-owner", "--no-privileges", *args, f"--file={database}", name]
            _run(dump, env)
        (work_dir / MANIFEST).write_text(json.dumps(manifest, indent=2))
        partial = work_dir / "archive.tar.gz"
        with tarfile.open(partial, "w:gz") as archive:
            archive.add(work_dir / MANIFEST, MANIFEST)
            archive.add(database, database.name)
            if manifest["media"]:
                archive.add(settings.MEDIA_ROOT, MEDIA)
        os.replace(partial, path)
    return manifest


def _tables() -> list[str]:
    return connection.introspection.table_names()


def restore(path: Path) -> dict:
    """Restore the archive at `path` into the (empty) default database and MEDIA_ROOT; return its manifest."""
    if not path.is_file():
        raise CommandError(f"{path} is not a file.")
    try:
        archive = tarfile.open(path, "r:*")  # noqa: SIM115 (closed by the with below)
    except tarfile.TarError as exc:
        raise CommandError(f"{path} is not a backup archive ({exc}).") from None
    with archive, tempfile.TemporaryDirectory(prefix="restore-") as work:
        try:
            manifest = json.loads(archive.extractfile(MANIFEST).read())
        except (KeyError, ValueError, AttributeError):
            raise CommandError(f"{path} is not a backup archive of this service (no {MANIFEST}).") from None
        if manifest.get("format") != FORMAT:
            raise CommandError(f"{path} is a backup of format {manifest.get('format')}, not {FORMAT}.")
        vendor = connection.vendor
        if manifest["database"] != vendor:
            raise CommandError(f"{path} holds a {manifest['database']} database; this service uses {vendor}.")
        tables = _tables()
        if tables:
            raise CommandError(
                f"The database is not empty ({len(tables)} tables): restore only into a new, empty database."
            )
        archive.extractall(work, filter="data")
        work_dir = Path(work)
        if vendor == "sqlite":
            name = settings.DATABASES["default"]["NAME"]
            connection.close()
            source = sqlite3.connect(work_dir / SQLITE_NAME)
            target = sqlite3.connect(name)
            try:
                source.backup(target)
            finally:
                target.close()
                source.close()
        else:
            connection.close()
            env, args = _pg_environment()
            name = settings.DATABASES["default"]["NAME"]
            _run(
                [
                    "pg_restore",
                    "--no-owner",
                    "--no-privileges",
                    "--exit-on-error",
                    "--single-transaction",
                    *args,
                    f"--dbname={name}",
                    str(work_dir / PG_NAME),
                ],
                env,
            )
        media = work_dir / MEDIA
        if manifest.get("media") and media.is_dir():
            if not settings.MEDIA_ROOT:
                raise CommandError("The backup holds uploaded files: set MEDIA_ROOT to restore them.")
            shutil.copytree(media, settings.MEDIA_ROOT, dirs_exist_ok=True)
    return manifest
