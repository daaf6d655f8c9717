"""The container image and the compose stack, built and run here without a Docker daemon (issue 45, items 1-3).

What a self-hoster does, on the CI machine: the Containerfile is built with buildah against a
locally made `debian:trixie-slim` (no image registry is reachable: mmdebstrap's minbase trixie,
imported under that name), then compose.yaml is brought up with compose.host.yaml (the host's
PostgreSQL and Redis instead of their containers, everything on the host network). Through the
published port a paste, a short link and a source-mode report are made; they are read again after
the web container restarts, and `down` is done within 10 s. The image runs as a non-root user, and
no layer holds the CA bundle given to the build as a secret.

Runs where podman, buildah and podman-compose are installed and the suite runs on PostgreSQL
(marked `postgres`: the stack needs the host's PostgreSQL, in a fresh database of its own);
REQUIRE_PODMAN=1 (CI) turns missing tools into a failure. The first build takes minutes; later
ones reuse buildah's layer cache.
"""

import io
import json
import os
import secrets
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from contextlib import suppress
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import psycopg
import pytest
from prometheus_client.parser import text_string_to_metric_families

from config import __version__
from tests.polling import eventually
from tests.reports.required import skip_or_fail
from tests.servers import BASE_DIR, free_port

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(1500)]

BASE_IMAGE = "docker.io/library/debian:trixie-slim"
IMAGE = "localhost/webtools:test"
RENDER_IMAGE = "localhost/webtools:test-render"  # app + Debian's chromium: the compose file's worker
CONTAINERS_CONF = BASE_DIR / "deploy" / "containers.conf"
REDIS_URL = "redis://127.0.0.1:6379/9"  # a database of its own on the host's Redis
# Where pip's TLS is checked on these machines (a proxy with its own CA); given to the build as a secret.
CA_BUNDLE = Path(os.environ.get("SSL_CERT_FILE") or "/etc/ssl/certs/ca-certificates.crt")


def podman_env() -> dict[str, str]:
    # The sandbox's limits and cgroup layout need deploy/containers.conf (docs/deployment.md).
    return {**os.environ, "CONTAINERS_CONF": str(CONTAINERS_CONF)}


def run(*command: str, timeout: float = 120, env: dict[str, str] | None = None, check: bool = True) -> str:
    result = subprocess.run(
        command, cwd=BASE_DIR, env=env or podman_env(), capture_output=True, text=True, timeout=timeout
    )
    if check:
        assert result.returncode == 0, f"{' '.join(command)} exited {result.returncode}:\n{result.stderr[-4000:]}"
    return result.stdout


def podman_compose() -> str | None:
    beside = Path(sys.executable).with_name("podman-compose")
    return str(beside) if beside.exists() else shutil.which("podman-compose")


@pytest.fixture(scope="module")
def image() -> str:
    """The app image, built from the Containerfile as a user would (layer cache kept between runs)."""
    missing = [tool for tool in ("podman", "buildah", "mmdebstrap") if not shutil.which(tool)]
    if not podman_compose():
        missing.append("podman-compose")
    if missing:
        skip_or_fail(
            f"{', '.join(missing)} missing: apt-get install buildah podman runc fuse-overlayfs mmdebstrap uidmap; "
            "pip install podman-compose",
            "REQUIRE_PODMAN",
        )
    if subprocess.run(["podman", "image", "exists", BASE_IMAGE], env=podman_env()).returncode != 0:
        # No registry here: the base is made from Debian's archive and given the name the Containerfile uses.
        with tempfile.TemporaryDirectory(prefix="webtools-base-") as directory:
            tarball = f"{directory}/trixie.tar"
            run("mmdebstrap", "--variant=minbase", "trixie", tarball, "http://deb.debian.org/debian", timeout=600)
            run("podman", "import", tarball, BASE_IMAGE, timeout=300)
    secret = ["--secret", f"id=ca,src={CA_BUNDLE}"] if CA_BUNDLE.is_file() else []
    started = time.monotonic()
    run(
        "buildah", "bud", "--pull=never", "--isolation=chroot", "--layers", "--format=docker", "--target=app",
        f"--build-arg=VERSION={__version__}", *secret, "-t", IMAGE, ".",
        timeout=1200,
    )  # fmt: skip
    print(f"image built in {time.monotonic() - started:.0f} s")
    return IMAGE


@pytest.fixture(scope="module")
def render_image(image) -> str:
    """The render image: the app image's layers (cached above) and a layer with Chromium."""
    secret = ["--secret", f"id=ca,src={CA_BUNDLE}"] if CA_BUNDLE.is_file() else []
    started = time.monotonic()
    run(
        "buildah", "bud", "--pull=never", "--isolation=chroot", "--layers", "--format=docker", "--target=render",
        f"--build-arg=VERSION={__version__}", *secret, "-t", RENDER_IMAGE, ".",
        timeout=1200,
    )  # fmt: skip
    print(f"render image built in {time.monotonic() - started:.0f} s")
    return RENDER_IMAGE


def test_the_image_runs_as_a_non_root_user_and_names_its_version(image):
    uid = run("podman", "run", "--rm", "--network=host", "--entrypoint=id", image, "-u").strip()
    assert uid != "0"
    labels = json.loads(run("podman", "image", "inspect", "--format={{json .Labels}}", image))
    assert labels["org.opencontainers.image.version"] == __version__
    # The entrypoint's manage role reaches Django's commands.
    version = run(
        "podman", "run", "--rm", "--network=host", "-e", f"SECRET_KEY={secrets.token_urlsafe(40)}", image,
        "manage", "shell", "-c", "import config; print(config.__version__)",
    )  # fmt: skip
    assert version.strip().splitlines()[-1] == __version__


def host_only_certificates(shipped: str) -> set[str]:
    """The first line of each certificate only the host's bundle has (a proxy's CA, where there is one).

    Debian's own bundle is in the image by design (the ca-certificates package), and so are the
    public bundles Python packages carry (certifi's, botocore's: a few CAs Debian has since dropped).
    """

    def first_lines(text: str) -> set[str]:
        lines = text.splitlines()
        return {lines[i + 1].strip() for i, line in enumerate(lines[:-1]) if line.startswith("-----BEGIN CERT")}

    return first_lines(CA_BUNDLE.read_text()) - first_lines(shipped) if CA_BUNDLE.is_file() else set()


def test_no_layer_holds_the_build_secret_or_a_secret_key(image, tmp_path):
    shipped = run(
        "podman", "run", "--rm", "--entrypoint=sh", image, "-c",
        "cat /etc/ssl/certs/ca-certificates.crt $(find / -xdev -path '*-packages/*' -name cacert.pem 2>/dev/null)",
    )  # fmt: skip
    needles = {line.encode() for line in host_only_certificates(shipped) if len(line) >= 40}
    archive = tmp_path / "image.tar"
    run("podman", "save", "--format=docker-archive", "-o", str(archive), image, timeout=300)
    found, secret_files, layers = set(), [], 0
    with tarfile.open(archive) as outer:
        for member in outer.getmembers():
            if not member.isfile():
                continue
            data = outer.extractfile(member).read()
            found |= {needle for needle in needles if needle in data}
            if member.name.endswith(".tar"):
                layers += 1
                with tarfile.open(fileobj=io.BytesIO(data)) as layer:
                    secret_files += [name for name in layer.getnames() if name.lstrip("./").startswith("run/secrets")]
    assert layers >= 3
    assert not found, f"{len(found)} certificates of the host's CA bundle are in the image"
    assert not secret_files, f"the build secret's mount point left files in a layer: {secret_files}"
    # Nor is a secret in the image's configuration or its history (ENV and RUN lines).
    history = run("podman", "history", "--no-trunc", "--format={{.CreatedBy}}", image)
    config = run("podman", "image", "inspect", "--format={{json .Config.Env}}", image)
    for text in (history, config):
        assert "SECRET_KEY=" not in text and "PIP_CERT" not in text


# The test's own layer over compose.yaml and compose.host.yaml: the images just built, never
# pulled, and a worker that renders (REPORTS_RENDER=1: no falling back to the source) and may
# fetch the stack's own page on 127.0.0.1.
TEST_OVERRIDE = """
services:
  migrate: {image: %(image)s, pull_policy: never}
  web:
    image: %(image)s
    pull_policy: never
    environment: {REPORTS_ALLOW_PRIVATE_NETWORKS: "1", WEB_CONCURRENCY: "2"}
  worker:
    image: %(render_image)s
    pull_policy: never
    environment: {REPORTS_ALLOW_PRIVATE_NETWORKS: "1", REPORTS_RENDER: "1"}
"""


@pytest.fixture
def fresh_database() -> str:
    """A new database on the suite's PostgreSQL server, dropped afterwards; its URL."""
    server = urlsplit(os.environ["DATABASE_URL"])
    name = f"webtools_compose_{secrets.token_hex(4)}"
    admin = urlunsplit(server._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    yield urlunsplit(server._replace(path=f"/{name}"))
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Stack:
    def __init__(self, directory: Path, database_url: str) -> None:
        self.project = f"webtools-test-{secrets.token_hex(3)}"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        override = directory / "compose.test.yaml"
        override.write_text(TEST_OVERRIDE % {"image": IMAGE, "render_image": RENDER_IMAGE})
        self.files = ["-f", "compose.yaml", "-f", "compose.host.yaml", "-f", str(override)]
        self.env = {
            **podman_env(),
            "SECRET_KEY": secrets.token_urlsafe(40),
            "POSTGRES_PASSWORD": "unused",
            "DATABASE_URL": database_url,
            "REDIS_URL": REDIS_URL,
            "WEBTOOLS_PORT": str(self.port),
            "METRICS_TOKEN": secrets.token_urlsafe(24),
        }

    def compose(self, *args: str, timeout: float = 180) -> str:
        return run(podman_compose(), "-p", self.project, *self.files, *args, timeout=timeout, env=self.env)

    def container(self, service: str) -> str:
        names = run(
            "podman", "ps", "-a", "--format={{.Names}}",
            f"--filter=label=com.docker.compose.project={self.project}",
            f"--filter=label=com.docker.compose.service={service}",
        ).split()  # fmt: skip
        assert len(names) == 1, names
        return names[0]

    def manage(self, *args: str) -> str:
        return run("podman", "exec", self.container("web"), "/app/deploy/entrypoint.sh", "manage", *args)

    def wait_healthy(self) -> None:
        def healthy() -> bool:
            with suppress(httpx.TransportError):
                return httpx.get(f"{self.url}/healthz", timeout=2).json()["status"] == "ok"
            return False

        eventually(healthy, timeout=90, message=lambda: f"/healthz never answered ok:\n{self.logs()}")

    def logs(self) -> str:
        out = []
        for service in ("migrate", "web", "worker"):
            with suppress(AssertionError, subprocess.SubprocessError):
                name = self.container(service)
                result = subprocess.run(
                    ["podman", "logs", "--tail=40", name], env=podman_env(), capture_output=True, text=True
                )
                out.append(f"--- {service}\n{result.stdout}{result.stderr}")
        return "\n".join(out)


def test_the_compose_stack_keeps_what_users_made_across_a_restart(image, render_image, fresh_database, tmp_path):
    stack = Stack(tmp_path, fresh_database)
    try:
        started = time.monotonic()
        stack.compose("up", "-d")
        stack.wait_healthy()
        print(f"stack up and healthy in {time.monotonic() - started:.1f} s")
        assert run("podman", "inspect", "--format={{.State.ExitCode}}", stack.container("migrate")).strip() == "0"
        assert run("podman", "exec", stack.container("web"), "id", "-u").strip() != "0"  # not root in the stack either
        # One process for the three keys: each manage.py start is seconds on a busy machine.
        made = stack.manage(
            "shell",
            "-c",
            "from django.core.management import call_command\n"
            "for interface in ('pastes', 'shortener', 'reports'):\n"
            "    call_command('create_api_key', 'compose', '--interface', interface)",
        ).split()
        prefixes = {"pastes": "pst_", "shortener": "shr_", "reports": "rpt_"}
        keys = {name: next(word for word in made if word.startswith(prefix)) for name, prefix in prefixes.items()}
        client = httpx.Client(base_url=stack.url, timeout=30)

        paste = client.post(
            "/pastes/create",
            headers={"Authorization": keys["pastes"]},
            json={"name": "compose", "content": "made through the container"},
        )
        assert paste.status_code == 200, paste.text
        paste_id = paste.json()["id"]

        link = client.post(
            "/s/a",
            headers={"Authorization": f"Bearer {keys['shortener']}", "Accept": "application/json"},
            data={"lsturl": "https://example.com/compose-target"},
        )
        assert link.status_code == 200 and link.json()["success"], link.text
        code = link.json()["short"].rstrip("/").rsplit("/", 1)[-1]
        redirect = client.get(f"/s/{code}")
        assert redirect.status_code == 302 and redirect.headers["location"] == "https://example.com/compose-target"

        # A report of the stack's own landing page, analysed by the worker container in Chromium.
        reports = {"Authorization": f"Bearer {keys['reports']}"}
        report = client.post("/api/v1/reports", headers=reports, json={"url": f"{stack.url}/"})
        assert report.status_code in (201, 202), report.text
        report_id = report.json()["data"]["id"]

        def analysed() -> dict | None:
            data = client.get(f"/api/v1/reports/{report_id}", headers=reports).json()["data"]
            assert data["status"] != "failed", data
            return data if data["status"] == "done" else None

        done = eventually(
            analysed, timeout=180, interval=0.5, message=lambda: f"the worker did not analyse it:\n{stack.logs()}"
        )
        assert 0 <= done["score"] <= 100
        # Lab metrics come only from a rendering: the render image's worker loaded the page in Chromium.
        assert done["metrics"], done

        # web's /metrics has the worker's counts too (the shared metrics volume), and web's two workers'.
        scraped = client.get("/metrics", headers={"Authorization": f"Bearer {stack.env['METRICS_TOKEN']}"})
        assert scraped.status_code == 200, scraped.text
        samples = {
            (sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(scraped.text)
            for sample in family.samples
        }
        analysed_count = ("webtools_analysis_duration_seconds_count", (("kind", "report"), ("outcome", "done")))
        assert samples.get(analysed_count) == 1, sorted(key for key in samples if "analysis" in key[0])
        redirect_count = (
            "webtools_http_requests_total",
            (("interface", "shortener"), ("route", "shortener:redirect"), ("status", "302")),
        )
        assert samples.get(redirect_count) == 1, sorted(key for key in samples if key[0] == redirect_count[0])

        # Not `restart`: podman refuses to restart a container whose dependency (migrate) has exited;
        # `start` starts that first, and migrate finds nothing to do.
        stack.compose("stop", "web")
        stack.compose("start", "web")
        stack.wait_healthy()
        again = client.get(f"/pastes/paste/@{paste_id}/raw", headers={"Authorization": keys["pastes"]})
        assert again.status_code == 200 and again.text == "made through the container"
        again = client.get(f"/s/{code}")
        assert again.status_code == 302 and again.headers["location"] == "https://example.com/compose-target"
        again = client.get(f"/api/v1/reports/{report_id}", headers=reports)
        assert again.status_code == 200 and again.json()["data"]["score"] == done["score"]

        # Every container stops on SIGTERM (init: true passes it on) instead of being killed after
        # its 10 s. Each is stopped and timed on its own with podman itself: podman-compose stops
        # them one after another, and its own start costs seconds on a busy machine (load 20: 10 s
        # for web alone). `down` then removes them.
        names = [stack.container(service) for service in ("web", "worker")]
        stopped = {}
        for service, name in zip(("web", "worker"), names, strict=True):
            started = time.monotonic()
            run("podman", "stop", "--time=10", name, timeout=60)
            stopped[service] = round(time.monotonic() - started, 1)
        codes = run("podman", "inspect", "--format={{.State.ExitCode}}", *names).split()
        started = time.monotonic()
        stack.compose("down", timeout=60)
        print(f"stop took {stopped} s, down {time.monotonic() - started:.1f} s")
        assert "137" not in codes, f"killed rather than stopped: exit codes of web, worker {codes}"
        assert max(stopped.values()) < 10, f"stop took {stopped} s (exit codes of web, worker {codes})"
        assert not run("podman", "ps", "-a", "-q", f"--filter=label=com.docker.compose.project={stack.project}").strip()
    finally:
        with suppress(Exception):
            stack.compose("down", "-v", "-t", "1", timeout=120)
        for leftover in run(
            "podman", "ps", "-a", "-q", f"--filter=label=com.docker.compose.project={stack.project}", check=False
        ).split():
            run("podman", "rm", "-f", leftover, check=False)


def test_one_container_serves_web_and_worker_on_sqlite(image):
    """The `serve` role (compose.sqlite.yaml): migrate, then web and worker in one container, stopped together."""
    port = free_port()
    name = f"webtools-serve-{secrets.token_hex(3)}"
    environment = [f"SECRET_KEY={secrets.token_urlsafe(40)}", "HOST=127.0.0.1", f"PORT={port}", "WEB_CONCURRENCY=1"]
    try:
        run(
            "podman", "run", "-d", "--init", "--network=host", "--name", name,
            *(f"--env={item}" for item in environment), image, "serve",
        )  # fmt: skip

        def healthy() -> bool:
            with suppress(httpx.TransportError):
                return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).json()["status"] == "ok"
            return False

        eventually(healthy, timeout=90, interval=0.2, message=lambda: run("podman", "logs", name, check=False))
        processes = run("podman", "top", name, "args")
        assert "granian" in processes and "analysis_worker" in processes, processes
        started = time.monotonic()
        run("podman", "stop", "--time=10", name)
        assert time.monotonic() - started < 10
    finally:
        run("podman", "rm", "-f", "-v", name, check=False)  # -v: the anonymous /data volume too
