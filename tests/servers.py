"""Real servers for the fault tests: granian serving the app as `make run` does, in its own processes.

Each server gets a free port (from TEST_SERVER_PORTS, e.g. "18700-18799", when set; else any the
OS gives), the database and Redis the test names, and is stopped (SIGTERM, then SIGKILL) at the end.
"""

import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager, suppress
from pathlib import Path
from urllib.parse import urlsplit

import httpx

BASE_DIR = Path(__file__).resolve().parent.parent
GRANIAN = Path(sys.executable).with_name("granian")


def free_port() -> int:
    low, _, high = os.environ.get("TEST_SERVER_PORTS", "0-0").partition("-")
    for port in range(int(low), int(high) + 1):
        with closing(socket.socket()) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return sock.getsockname()[1]
    raise RuntimeError("no free port in TEST_SERVER_PORTS")


def server_env(database_url: str, **extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url,
        "SECRET_KEY": "test-only-secret-key-not-for-production-0123456789abcdef",
        "DEBUG": "0",
        "REDIS_URL": "",
        "SHORTENER_CACHE_PRELOAD": "0",
        "LOG_LEVEL": "WARNING",
    }
    env.update(extra)
    return env


def child_pids(pid: int) -> list[int]:
    """The processes `pid` started, from any of its threads (a worker's visit writer is its flusher thread's)."""
    children: list[int] = []
    with suppress(FileNotFoundError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with suppress(FileNotFoundError):
                children += [int(child) for child in (task / "children").read_text().split()]
    return children


def running(pid: int) -> bool:
    """Whether process `pid` exists and has not exited (a zombie not yet reaped has)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def manage(env: dict[str, str], *args: str) -> str:
    """Run a manage.py command with the server's environment; return its output."""
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def static_is_stale() -> bool:
    manifest = BASE_DIR / "staticfiles" / "staticfiles.json"
    if not manifest.exists():
        return True
    sources = [path for pattern in ("static/**/*", "*/static/**/*") for path in BASE_DIR.glob(pattern)]
    return any(path.stat().st_mtime > manifest.stat().st_mtime for path in sources if path.is_file())


class LoggedProcess:
    """A child process of the tests whose output goes to a temporary file; stop() ends it for good."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.env = env
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (closed in stop())
        self.process = subprocess.Popen(command, cwd=BASE_DIR, env=env, stdout=self.log, stderr=subprocess.STDOUT)

    def output(self) -> str:
        return self.log_text()[-5000:]

    def log_text(self) -> str:
        """Everything the process has written (its log) so far."""
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 15 seconds."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


class Server(LoggedProcess):
    """granian with `workers` workers serving config.asgi, respawning failed ones as `make run` does.

    `threads` is the process's WEB_THREADS (the pool that runs the WSGI application behind the
    body reader); `interface="wsgi"` serves config.wsgi with as many blocking threads instead.
    """

    static_collected = False

    def __init__(
        self,
        env: dict[str, str],
        *,
        workers: int = 2,
        threads: int = 2,
        interface: str = "asgi",
        ready_timeout: float = 30,
    ) -> None:
        if not Server.static_collected:
            # As `make run`: pages name their static files through collectstatic's manifest
            # (compressing them all takes most of a minute, so only when ours changed).
            if static_is_stale():
                manage(env, "collectstatic", "--noinput", "-v0")
            Server.static_collected = True
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        super().__init__(
            [
                str(GRANIAN),
                f"--interface={interface}",
                f"config.{interface}:application",
                "--host=127.0.0.1",
                f"--port={self.port}",
                f"--workers={workers}",
                f"--blocking-threads={threads if interface == 'wsgi' else 1}",
                # As the Makefile's `run`: a worker that dies is replaced after a second.
                "--respawn-failed-workers",
                "--respawn-interval=1",
            ],
            {**env, "WEB_THREADS": str(threads)},
        )
        try:
            self.wait_until_up(workers, timeout=ready_timeout)
        except BaseException:
            self.stop()  # a server that did not start must not outlive the test
            raise

    def wait_until_up(self, workers: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.output()
            if len(self.worker_pids()) == workers:
                try:
                    if httpx.get(f"{self.url}/healthz", timeout=2).status_code in (200, 503):
                        return
                except httpx.TransportError:
                    pass
            time.sleep(0.2)
        raise AssertionError(f"server did not start:\n{self.output()}")

    def worker_pids(self) -> list[int]:
        try:
            children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text()
        except FileNotFoundError:
            return []
        return [int(pid) for pid in children.split()]

    def workers_rss_kib(self) -> int:
        """The resident memory of the worker processes together, in KiB."""
        total = 0
        for pid in self.worker_pids():
            with suppress(FileNotFoundError):
                status = Path(f"/proc/{pid}/status").read_text()
                total += int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))
        return total

    def worker_has_loaded_the_app(self, pid: int) -> bool:
        """Whether worker `pid` holds a connection to the database, as it does once the app is loaded.

        The fast path starts with the app (config.wsgi) and its version watcher connects at once; a
        worker still importing the app has none. Read from /proc: which sockets the process holds,
        and which of those are TCP connections to the database's port.
        """
        port = urlsplit(self.env["DATABASE_URL"]).port or 5432
        try:
            sockets = {
                os.readlink(fd).removeprefix("socket:[").removesuffix("]")
                for fd in Path(f"/proc/{pid}/fd").iterdir()
                if os.readlink(fd).startswith("socket:[")
            }
            lines = [
                line.split()
                for table in ("tcp", "tcp6")
                for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
            ]
        except OSError:  # the worker is gone, or a descriptor closed while being read
            return False
        return any(int(fields[2].rsplit(":", 1)[1], 16) == port and fields[9] in sockets for fields in lines)

    def terminate(self, timeout: float = 30) -> int:
        """SIGTERM, as a supervisor stops the service; return the exit status."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=timeout)


@contextmanager
def two_servers(env: dict[str, str], *, workers: int, ready_timeout: float = 30) -> Iterator[tuple[Server, Server]]:
    """Two servers of the same service, as on two machines behind a load balancer; both stopped at the end."""
    first = Server(env, workers=workers, ready_timeout=ready_timeout)
    try:
        second = Server(env, workers=workers, ready_timeout=ready_timeout)
    except BaseException:
        first.stop()
        raise
    try:
        yield first, second
    finally:
        first.stop()
        second.stop()


class RedisServer:
    """A throwaway redis-server on a free port, without persistence; stop() takes it away for real."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.start()

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with closing(socket.socket()) as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise AssertionError("redis-server did not start")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


def served_password(password: str) -> str:
    """`password` hashed as the served process hashes (the tests' MD5 hasher is unknown to it),
    with few iterations so that each login costs the loaded test machine little."""
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    return PBKDF2PasswordHasher().encode(password, "servedsalt", iterations=1000)


def served_database_url(connection) -> str:
    """The URL of the test database, for servers in other processes (PostgreSQL only)."""
    params = connection.settings_dict
    return f"postgres://{params['USER']}@{params['HOST']}:{params['PORT']}/{params['NAME']}"


class CuttableProxy:
    """A TCP proxy to `target` (PostgreSQL) that the test can cut, like a network failure, and restore."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = free_port()
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self.restore()

    def restore(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", self.port), reuse_port=False)
        threading.Thread(target=self._accept, args=(self._listener,), daemon=True).start()

    def cut(self) -> None:
        """Refuse new connections and break every open one."""
        # shutdown() first: a bare close() leaves the socket listening for the thread blocked in accept().
        with suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        with self._lock:
            for sock in self._sockets:
                with suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # cut
            upstream = socket.create_connection(self.target)
            with self._lock:
                self._sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        with suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with suppress(OSError):
            sink.shutdown(socket.SHUT_WR)
