"""SHORTENER_BLOCKLIST_FILE: a host is blocked when it, or any domain it is under, is listed.

The file holds one domain a line, or a hosts-file line (`0.0.0.0 example.com other.example`,
the form of the common ad and malware lists); `#` starts a comment. It is read into a set, so a
check is one set lookup per label of the host (`a.b.example.com`: four), whatever the list's
size: 10⁶ entries cost ~0.1 ms at most per creation (bench/blocklist.py). The file's modification
time and size are compared on every check (one `stat`), and a changed file is read again by a
thread, so an updated list is used without a restart; until it is read the previous one stays in
use. Only a process's first read is waited for.
"""

import logging
import os
import threading
from dataclasses import dataclass

from django.conf import settings

logger = logging.getLogger(__name__)

# Addresses hosts files map blocked names to; they are not domains themselves.
HOSTS_FILE_ADDRESSES = frozenset({"0.0.0.0", "127.0.0.1", "::", "::1", "::0", "0:0:0:0:0:0:0:0"})
# Names hosts files carry for the machine itself, never a blocked domain.
LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "local", "broadcasthost", "ip6-localhost"})


def parse(text: str) -> frozenset[str]:
    """The domains of a blocklist file's text, lower-cased and without a trailing dot."""
    domains = set()
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        if fields[0] in HOSTS_FILE_ADDRESSES or _is_address(fields[0]):
            fields = fields[1:]  # a hosts-file line: the address, then the names
        for field in fields:
            domain = field.strip(".").lower()
            if domain and domain not in LOCAL_NAMES and not _is_address(domain):
                domains.add(domain)
    return frozenset(domains)


def _is_address(field: str) -> bool:
    return ":" in field or field.replace(".", "").isdigit()


@dataclass(frozen=True)
class _Loaded:
    path: str
    signature: tuple[int, int]  # (mtime_ns, size)
    domains: frozenset[str]


class Blocklist:
    def __init__(self) -> None:
        self._loaded: _Loaded | None = None
        self._lock = threading.Lock()
        # False: a changed file is read at once, in the caller's thread (tests, the periodic check).
        self.background = True

    def domains(self, *, wait: bool = False) -> frozenset[str]:
        """The listed domains, read again if the file changed since the last read (`wait`: before answering)."""
        path = settings.SHORTENER_BLOCKLIST_FILE
        if not path:
            return frozenset()
        try:
            stat = os.stat(path)
        except OSError:
            # A list being replaced (or gone) keeps the last one read rather than blocking nothing.
            logger.warning("Cannot read SHORTENER_BLOCKLIST_FILE %s; keeping the last list read.", path)
            loaded = self._loaded
            return loaded.domains if loaded is not None and loaded.path == path else frozenset()
        signature = (stat.st_mtime_ns, stat.st_size)
        loaded = self._loaded
        if loaded is not None and loaded.path == path and loaded.signature == signature:
            return loaded.domains
        if loaded is not None and loaded.path == path and self.background and not wait:
            # A changed list is read by a thread while the previous one stays in use: reading 10⁶
            # lines takes seconds, which no creation should wait for (bench/blocklist.py).
            if self._lock.acquire(blocking=False):
                threading.Thread(target=self._read_and_release, args=(path, signature), daemon=True).start()
            return loaded.domains
        with self._lock:  # the first read: every thread waits for it, then uses it
            loaded = self._loaded
            if loaded is None or loaded.path != path or loaded.signature != signature:
                loaded = self._read(path, signature)
            return loaded.domains

    def _read(self, path: str, signature: tuple[int, int]) -> _Loaded:
        with open(path, encoding="utf-8", errors="replace") as file:
            loaded = _Loaded(path, signature, parse(file.read()))
        self._loaded = loaded
        logger.info("Read %d blocked domains from %s.", len(loaded.domains), path)
        return loaded

    def _read_and_release(self, path: str, signature: tuple[int, int]) -> None:
        try:
            self._read(path, signature)
        except OSError:
            logger.warning("Cannot read SHORTENER_BLOCKLIST_FILE %s; keeping the last list read.", path)
        finally:
            self._lock.release()

    def blocked_domain(self, host: str) -> str | None:
        """The listed domain `host` is or is under, or None."""
        domains = self.domains()
        if not domains:
            return None
        host = host.strip(".").lower()
        while True:
            if host in domains:
                return host
            dot = host.find(".")
            if dot < 0:
                return None
            host = host[dot + 1 :]


blocklist = Blocklist()
