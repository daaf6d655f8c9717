"""The rendered page (REPORTS_RENDER=1): load it in headless Chromium, as a visitor's browser would.

Links, images and whole documents that scripts add are invisible in the HTML as
served; the DOM checks therefore run on the document Chromium ends up with. Network
checks keep using the raw response.

The SSRF guard holds for the browser too: Chromium never opens a connection of its
own. Every request it makes is intercepted and answered with a fetch by the engine's
`Fetcher` (the same vetted resolver, redirect and size rules), or refused: methods
other than GET/HEAD, schemes other than http(s), WebSockets, service workers. Anything
that would slip past the interception finds no DNS (`--host-resolver-rules`) and a
proxy on a closed port; WebRTC may send nothing but through that proxy (its STUN and
TURN servers hear nothing). A rendered analysis has its own budget: REPORTS_RENDER_TIMEOUT
seconds for loading, at most RENDER_MAX_REQUESTS requests and RENDER_MAX_BYTES bytes,
REPORTS_RENDER_MAX_MEMORY_MB of JavaScript heap, and REPORTS_RENDER_MAX_TOTAL_MB for all of
its Chromium processes together (`_MemoryWatch`): without cgroups, that total is watched from
/proc and the browser is killed past it, and the analysis reads the source instead. An address-
space limit (RLIMIT_AS) is no use here: Chromium reserves tens of GB of address space it never
touches (V8's pointer cage, PartitionAlloc), so any limit that lets it start caps nothing.

Chromium is Debian's (REPORTS_CHROMIUM_PATH, /usr/bin/chromium), driven by Playwright;
no browser is downloaded.

Starting Playwright's driver and Chromium took about 2 of a small page's 4-5 seconds, so each
process keeps them running between renderings (`_Renderer`, at most one per rendering slot) and
gives every page a new browser context: no cookie, storage or cache of one page reaches the next.
A browser that is gone (killed by the memory watch, crashed) is launched again for the next page;
a renderer whose rendering failed or overran its time is not used again (its browser is killed);
close_browsers() closes them all when the process stops.
"""

import atexit
import contextlib
import importlib.util
import os
import queue
import signal
import threading
import time
import uuid
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings

from common.priority import lower_autogroup
from reports.analysis import lab
from reports.analysis.errors import AnalysisError
from reports.analysis.fetch import Fetched, Fetcher

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Route

RENDER_MAX_REQUESTS = 150
RENDER_MAX_BYTES = 32 * 1024 * 1024
# What Lighthouse emulates for mobile (a Moto G Power): tap targets are judged at this size.
VIEWPORT = {"width": 412, "height": 823}
# After "load", scripts may still fetch and build the page; wait this long for the network to settle.
SETTLE_MS = 1500
# Time for the page to finish loading once requests past the budget have been refused.
GRACE = 5
# Starting Chromium is not the page's fault: it has its own limit, outside the page's budget.
LAUNCH_TIMEOUT = 30
# Seconds the rendering's thread has to fail once the memory watch killed its browser.
KILLED_GRACE = 5
# The autogroup niceness of the browser's sessions at REPORTS_RENDER_PRIORITY=idle (common/priority.py).
LOWEST_NICE = 19
# Headers that describe the bytes on the wire, which the body we hand back no longer matches.
HOP_HEADERS = {"content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"}
AUDIT_SCRIPT = (Path(__file__).parent / "rendered_audits.js").read_text()
# Lighthouse's crawlable-anchors fails an <a> without href that a script listens to (on it or on an
# ancestor: a link crawlers cannot follow), and one with href's companion attributes but no href.
# Only the DevTools protocol sees listeners: the page lists the candidates and their ancestors,
# DOMDebugger.getEventListeners asks each once, and the page names the anchors that fail.
# The first 50 are enough to judge a page, and keep a page of thousands from costing a round trip each.
# The candidates come back as one array of the anchors and their ancestors, each once (what is asked
# about), which also carries the anchors themselves (`anchors`: [anchor, has a companion]).
LISTENED_CANDIDATES = """(() => {
  const companions = ["target", "download", "ping", "rel", "hreflang", "type", "referrerpolicy"];
  const anchors = [...document.querySelectorAll("a:not([href])")].filter((anchor) =>
    !(anchor.getAttribute("role") || "").trim() && !anchor.id && !(anchor.getAttribute("name") || "").trim()
  ).slice(0, 50).map((anchor) => [anchor, companions.some((name) => anchor.hasAttribute(name))]);
  const elements = new Set();
  for (const [anchor] of anchors) for (let node = anchor; node; node = node.parentElement) elements.add(node);
  return Object.assign([...elements], {anchors});
})()"""
FAILING_ANCHORS = """function (listened) {
  const heard = new Set(this.filter((element, index) => listened[index]));
  const failing = [];
  for (const [anchor, companion] of this.anchors) {
    let node = anchor;
    while (node && !heard.has(node)) node = node.parentElement;
    if (companion || node) failing.push(anchor.outerHTML.slice(0, 80));
  }
  return failing;
}"""


@dataclass
class Rendered:
    html: str  # the rendered document, serialised
    facts: dict  # what the in-browser audits found: {check key: {"value": …, "failures": […]}}
    requests: int = 0
    refused: list[dict] = field(default_factory=list)  # {"url", "reason"} of requests not let through
    elapsed_ms: int = 0
    peak_memory_kib: int = 0  # all the browser's processes together, at the highest sample


class RenderError(Exception):
    """The page could not be rendered; the analysis falls back to the source document."""


# Renderings one process runs at once (REPORTS_RENDER_CONCURRENCY): each is a whole Chromium, busy
# on the CPU and the disk while it starts and loads; more at once than the machine has cores
# finish no sooner and slow the web server beside them. The others wait their turn (their
# analysis keeps its lease meanwhile); the rendering's own time starts with its turn.
_render_slots = threading.BoundedSemaphore(settings.REPORTS_RENDER_CONCURRENCY)


def render(document: Fetched) -> Rendered:
    """Render `document` (already fetched) in Chromium within the rendering budget, once a slot is free."""
    with _render_slots:
        return _render_in_thread(document)


def _render_in_thread(document: Fetched) -> Rendered:
    budget = settings.REPORTS_RENDER_TIMEOUT
    renderer = _take_renderer()
    watch = _MemoryWatch(settings.REPORTS_RENDER_MAX_TOTAL_MB, renderer.marker)
    answers = renderer.run(lambda: _render(renderer, document, budget, watch))
    deadline = time.monotonic() + LAUNCH_TIMEOUT + budget + 10
    killed_deadline = None
    while True:
        try:
            rendered, value = answers.get(timeout=MEMORY_SAMPLE_SECONDS)
            break
        except queue.Empty:
            now = time.monotonic()
        if watch.exceeded:
            # Playwright fails the page's next call once the browser is killed, as a rule; now and
            # then (Chromium 156) it waits out the whole rendering time instead. The cause is known.
            killed_deadline = killed_deadline or now + KILLED_GRACE
            if now >= killed_deadline:
                renderer.retire()
                raise watch.error()
        if now >= deadline:
            renderer.retire()
            raise RenderError(f"rendering took longer than {budget:g} seconds")
    if not rendered:
        raise value  # the renderer has retired itself
    _give_back(renderer)
    return value


# The process's renderers: every one whose thread runs, and those waiting for a rendering. At most
# one per rendering slot is idle, since a rendering holds its slot while it holds its renderer.
_renderers_lock = threading.Lock()
_renderers: set["_Renderer"] = set()
_idle_renderers: list["_Renderer"] = []


def _take_renderer() -> "_Renderer":
    with _renderers_lock:
        if _idle_renderers:
            return _idle_renderers.pop()
    return _Renderer()


def _give_back(renderer: "_Renderer") -> None:
    with _renderers_lock:
        if not renderer.retired:
            _idle_renderers.append(renderer)


def warm_up() -> None:
    """Start a renderer's driver and browser now, in the background, so that the first rendering finds them warm.

    The analysis worker calls it as it starts. A browser that fails to start here is started
    again by the first rendering, which then reports why it could not.
    """
    if not (settings.REPORTS_RENDER and chromium_installed()):
        return
    with _renderers_lock:
        if _renderers:
            return
    renderer = _Renderer()
    renderer.run(renderer.warm)
    _give_back(renderer)


def close_browsers(timeout: float = 5) -> None:
    """Close every renderer's browser and driver: an idle one in its thread, a busy one killed at once.

    The analysis worker calls it as it stops, and every process at exit. Renderings after it
    start new renderers.
    """
    with _renderers_lock:
        idle = list(_idle_renderers)
        busy = [renderer for renderer in _renderers if renderer not in idle]
        _idle_renderers.clear()
    for renderer in busy:
        renderer.retire()
    for renderer in idle:
        renderer.close(timeout)


atexit.register(close_browsers)


class _Renderer:
    """A thread that keeps Playwright's driver and a Chromium running, and renders pages on them one at a time.

    Playwright's sync API belongs to the thread that started it, and refuses to run inside an
    asyncio loop, which a caller may have: the driver, the browser and every rendering on them
    live in this thread, and the caller waits for its answer. A daemon thread: a Playwright call
    on a killed browser may never return, and a pool's thread is joined when the interpreter
    exits, so the worker (and a test run) would never stop.
    """

    def __init__(self) -> None:
        # Chromium ignores switches it does not know: this one finds the renderer's browser in /proc.
        self.marker = f"--webtools-render={uuid.uuid4().hex}"
        self.retired = False
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._playwright = None
        self._browser = None
        self._launched_with: tuple | None = None
        with _renderers_lock:
            _renderers.add(self)
        self._thread = threading.Thread(target=self._serve, name="reports-renderer", daemon=True)
        self._thread.start()

    def run(self, work) -> queue.SimpleQueue:
        """Call `work()` in the renderer's thread; the queue then gets (True, its value) or (False, its exception)."""
        answers: queue.SimpleQueue = queue.SimpleQueue()
        self._jobs.put((work, answers))
        return answers

    def retire(self) -> None:
        """Use the renderer no more: its browser is killed now, and its thread ends once its work returns."""
        self.retired = True
        self._jobs.put(None)
        _kill_browser(self.marker)

    def close(self, timeout: float) -> None:
        """Stop an idle renderer: its thread closes the browser and the driver (killed after `timeout`)."""
        self.retired = True
        self._jobs.put(None)
        self._thread.join(timeout)
        if self._thread.is_alive():
            _kill_browser(self.marker)

    def warm(self) -> None:
        with contextlib.suppress(Exception):
            self.browser()

    def browser(self, *, fresh: bool = False) -> "Browser":
        """The renderer's browser; a new one if `fresh`, if it has none or it is gone, or if the settings changed."""
        from playwright.sync_api import sync_playwright

        launch = (settings.REPORTS_CHROMIUM_PATH, settings.REPORTS_RENDER_MAX_MEMORY_MB)
        if self._browser is not None and (fresh or launch != self._launched_with or not self._browser.is_connected()):
            self.close_browser()
        if self._browser is None:
            if self._playwright is None:
                with idle_children():  # the driver, and every Chromium it starts
                    self._playwright = sync_playwright().start()
            self._browser = self._playwright.chromium.launch(
                executable_path=launch[0],
                args=[*chromium_args(launch[1]), self.marker],
                timeout=LAUNCH_TIMEOUT * 1000,
            )
            self._launched_with = launch
            if settings.REPORTS_RENDER_PRIORITY == "idle":
                lower_browser_sessions(self.marker)
        return self._browser

    def close_browser(self) -> None:
        browser, self._browser = self._browser, None
        if browser is not None:
            with contextlib.suppress(Exception):  # already gone
                browser.close()
            _kill_browser(self.marker)  # whatever close() left behind

    def _serve(self) -> None:
        try:
            while (job := self._jobs.get()) is not None:
                work, answers = job
                if self.retired:  # stopped (close_browsers) between being taken and given its page
                    answers.put((False, RenderError("rendering was stopped")))
                    return
                try:
                    answers.put((True, work()))
                except BaseException as error:  # handed to the waiting thread, which raises it
                    # A renderer whose rendering failed is not trusted with the next one.
                    self.retired = True
                    answers.put((False, error))
                    return
        finally:
            with _renderers_lock:
                _renderers.discard(self)
                if self in _idle_renderers:
                    _idle_renderers.remove(self)
            self.close_browser()
            if self._playwright is not None:
                with contextlib.suppress(Exception):
                    self._playwright.stop()


def chromium_installed() -> bool:
    """Whether rendering can run here: Playwright importable and Chromium at REPORTS_CHROMIUM_PATH."""
    path = settings.REPORTS_CHROMIUM_PATH
    return bool(importlib.util.find_spec("playwright")) and os.path.isfile(path) and os.access(path, os.X_OK)


# How often the memory watch samples the browser's processes.
MEMORY_SAMPLE_SECONDS = 0.2


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None  # gone meanwhile


def _memory_kib(pid: int) -> int:
    """The process's proportional set size in KiB (its RSS where smaps_rollup is missing); 0 when gone."""
    try:
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
                lines, key = rollup.read().splitlines(), b"Pss:"
        except FileNotFoundError:
            with open(f"/proc/{pid}/status", "rb") as status:
                lines, key = status.read().splitlines(), b"VmRSS:"
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in lines if line.startswith(key)), 0)


def _find_browser(marker: str) -> int | None:
    """The pid of the Chromium browser process launched with `marker` on its command line."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as cmdline:
                if marker.encode() in cmdline.read():
                    return int(entry.name)
        except OSError:
            continue
    return None


def _running(pid: int) -> bool:
    """Whether the process is there and not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def _kill_browser(marker: str) -> None:
    """SIGKILL the browser launched with `marker` and every process of its tree.

    Every process, not only the browser: Chromium 156's zygotes and renderers outlive a killed
    browser process and keep Playwright's pipe open, so that Playwright would wait out the
    rendering's whole time instead of failing the page's next call.
    """
    browser = _find_browser(marker)
    if browser is not None:
        for pid in process_tree(browser):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _children(pid: int) -> list[int] | None:
    """The process's children, from /proc/<pid>/task/*/children; None where the kernel lacks that file."""
    children = []
    try:
        for task in os.scandir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task.name}/children", "rb") as listed:
                children.extend(int(child) for child in listed.read().split())
    except FileNotFoundError:
        return None if not os.path.exists(f"/proc/{pid}") else children
    except OSError:
        pass  # a thread or the process ended meanwhile
    return children


def process_tree(root: int) -> set[int]:
    """`root` and all its descendants (Chromium's zygotes, renderers, utilities)."""
    tree, pending = set(), [root]
    while pending:
        pid = pending.pop()
        if pid in tree:
            continue
        tree.add(pid)
        children = _children(pid)
        if children is None:  # no children files: find the descendants by every process's parent
            return _scanned_tree(root)
        pending.extend(children)
    return tree


def process_tree_kib(root: int) -> int:
    """The memory of `root` and all its descendants, in KiB."""
    return sum(_memory_kib(pid) for pid in process_tree(root))


def _scanned_tree(root: int) -> set[int]:
    parents = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (parent := _parent(int(entry.name))) is not None:
            parents[int(entry.name)] = parent
    tree, grew = {root}, True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grew = True
    return tree


class _MemoryWatch:
    """Kill a rendering's browser when all its processes together use more than `limit_mb`.

    A thread samples the browser's process tree every MEMORY_SAMPLE_SECONDS while a rendering
    runs; the browser is found by its renderer's marker switch on its command line.
    """

    def __init__(self, limit_mb: int, marker: str) -> None:
        self.limit_kib = limit_mb * 1024
        self.marker = marker
        self.peak_kib = 0
        self.exceeded = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="reports-render-memory", daemon=True)

    def error(self) -> RenderError:
        return RenderError(f"the browser used more than {self.limit_kib // 1024} MB of memory")

    def __enter__(self) -> "_MemoryWatch":
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        browser = None
        while not self._stop.wait(MEMORY_SAMPLE_SECONDS):
            if browser is None or not _running(browser):  # not launched yet, or launched again
                browser = _find_browser(self.marker)
            if browser is None:
                continue
            used = process_tree_kib(browser)
            self.peak_kib = max(self.peak_kib, used)
            if used > self.limit_kib:
                self.exceeded = True
                _kill_browser(self.marker)  # the analysis reads the source; the next rendering launches another
                return


def chromium_args(max_memory_mb: int) -> list[str]:
    return [
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--proxy-server=http://127.0.0.1:9",
        "--proxy-bypass-list=<-loopback>",
        "--dns-prefetch-disable",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-domain-reliability",
        "--disable-sync",
        "--no-pings",
        # WebRTC reaches nothing but through the proxy above, a closed port: a page's STUN and TURN
        # servers, at a private address or not, get no packet by UDP or TCP. Chrome's own browser
        # (Debian's chromium, headless too) reads the first switch; the headless shell the second.
        "--webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--renderer-process-limit=1",
        f"--js-flags=--max-old-space-size={max_memory_mb}",
    ]


@contextlib.contextmanager
def idle_children() -> Iterator[None]:
    """Let the processes started in the block run only on CPU time nothing else wants (Linux's SCHED_IDLE).

    A scheduling policy belongs to a thread on Linux, and a child process inherits its parent
    thread's: Playwright's driver, started in the block, and every Chromium process it starts
    then run at SCHED_IDLE, so that renderings never take the CPU from the web server's requests.
    The calling thread gets its own policy back after the block: it drives the browser holding
    the worker's GIL, and at SCHED_IDLE it would keep the worker's other threads (and the
    database lock one of them may hold) waiting whenever the CPU is busy. A niceness would not
    hold: Chromium sets its threads' niceness itself (-8 for some, when it may), not their policy.
    With REPORTS_RENDER_PRIORITY=normal renderings compete for the CPU like everything else.
    """
    thread = threading.get_native_id()
    lowered = False
    if settings.REPORTS_RENDER_PRIORITY == "idle" and hasattr(os, "SCHED_IDLE"):
        with contextlib.suppress(OSError):
            policy, param = os.sched_getscheduler(thread), os.sched_getparam(thread)
            os.sched_setscheduler(thread, os.SCHED_IDLE, os.sched_param(0))
            lowered = True
    try:
        yield
    finally:
        if lowered:
            with contextlib.suppress(OSError):  # without the right to go back, the thread stays idle
                os.sched_setscheduler(thread, policy, param)


def lower_browser_sessions(marker: str) -> None:
    """Give every session of the browser's processes the lowest autogroup niceness (common/priority.py).

    Playwright starts Chromium in a session of its own, and with Linux's autogroups SCHED_IDLE
    only ranks it within that session; the session's own niceness ranks it against the web server.
    """
    browser = _find_browser(marker)
    if browser is None:
        return
    for pid in process_tree(browser):
        with contextlib.suppress(OSError):
            if os.getsid(pid) == pid:
                lower_autogroup(pid, LOWEST_NICE)


def _scripted_anchors(cdp) -> list[str]:
    """The anchors without href that Lighthouse's crawlable-anchors fails (see FAILING_ANCHORS)."""
    candidates = cdp.send("Runtime.evaluate", {"expression": LISTENED_CANDIDATES})["result"]
    if "objectId" not in candidates:  # the script threw (a page that replaced document's methods)
        return []
    properties = cdp.send("Runtime.getProperties", {"objectId": candidates["objectId"], "ownProperties": True})
    elements = sorted(
        (int(item["name"]), item["value"]["objectId"]) for item in properties["result"] if item["name"].isdigit()
    )
    listened = [
        bool(cdp.send("DOMDebugger.getEventListeners", {"objectId": object_id})["listeners"])
        for _index, object_id in elements
    ]
    failing = cdp.send(
        "Runtime.callFunctionOn",
        {
            "objectId": candidates["objectId"],
            "functionDeclaration": FAILING_ANCHORS,
            "arguments": [{"value": listened}],
            "returnByValue": True,
        },
    )
    return failing["result"].get("value") or []


def _new_context(browser: "Browser"):
    return browser.new_context(
        viewport=VIEWPORT,
        is_mobile=True,
        has_touch=True,
        user_agent=settings.REPORTS_USER_AGENT,
        service_workers="block",
        accept_downloads=False,
    )


def _render(renderer: _Renderer, document: Fetched, budget: float, watch: _MemoryWatch) -> Rendered:
    """Render `document` in a new context of the renderer's browser (in the renderer's thread)."""
    try:
        from playwright.sync_api import Error as PlaywrightError
    except ImportError:
        raise RenderError("Playwright is not installed") from None
    started = time.monotonic()
    fetcher = None
    rendered = Rendered(html="", facts={})
    try:
        with watch:
            browser = renderer.browser()
            try:
                context = _new_context(browser)
            except PlaywrightError:
                if watch.exceeded:
                    raise
                # The warm browser died since its last page (crashed, killed), and Playwright did not know yet.
                browser = renderer.browser(fresh=True)
                context = _new_context(browser)
            # The budget starts with the page: every fetch the browser asks for shares it.
            fetcher = Fetcher(budget=budget)
            try:
                interceptor = _Interceptor(fetcher, document, rendered)
                context.route("**/*", interceptor)
                context.route_web_socket("**/*", lambda websocket: websocket.close())
                page = context.new_page()
                # The lab metrics read the main thread's tasks and paints from Chromium's trace.
                browser.start_tracing(page=page, categories=lab.TRACE_CATEGORIES)
                # Requests past the budget are refused, after which "load" comes quickly: allow for that.
                page.goto(document.url, wait_until="load", timeout=(max(0, fetcher.remaining()) + GRACE) * 1000)
                # A page still busy after that (polling, analytics) is judged as it is.
                with contextlib.suppress(PlaywrightError):
                    page.wait_for_load_state("networkidle", timeout=min(SETTLE_MS, max(1, fetcher.remaining() * 1000)))
                observed = page.evaluate(lab.READ_SCRIPT)
                trace = browser.stop_tracing()
                # The audits first: they mark what the stylesheets hide in the document serialised next.
                rendered.facts = page.evaluate(AUDIT_SCRIPT)
                with contextlib.suppress(PlaywrightError):  # the page went away: its anchors go unjudged
                    rendered.facts["scripted_anchors"] = _scripted_anchors(context.new_cdp_session(page))
                rendered.facts["lab_metrics"] = lab.metrics(trace, observed, document.url, interceptor.wire_bytes)
                rendered.html = page.content()
            finally:
                try:
                    context.close()
                except PlaywrightError:
                    renderer.close_browser()  # a context left open must not meet the next page
    except PlaywrightError as exc:
        if watch.exceeded:
            raise watch.error() from None
        raise RenderError(str(exc).splitlines()[0]) from None
    finally:
        if fetcher is not None:
            fetcher.close()
    rendered.peak_memory_kib = watch.peak_kib
    rendered.elapsed_ms = round((time.monotonic() - started) * 1000)
    return rendered


def wire_size(fetched: Fetched) -> int:
    """The response's size as sent: the body compressed again (gzip's level 6) when it came compressed."""
    if fetched.headers.get("content-encoding", "identity").lower() in ("", "identity"):
        return len(fetched.body)
    return len(zlib.compress(fetched.body, 6))


class _Interceptor:
    """Answers every request of the browser with a guarded fetch, or refuses it."""

    def __init__(self, fetcher: Fetcher, document: Fetched, rendered: Rendered) -> None:
        self.fetcher = fetcher
        self.document = document
        self.rendered = rendered
        self.bytes = 0
        self.served_document = False
        self.wire_bytes: dict[str, int] = {}  # URL → its size on the wire, for the lab metrics' network model

    def __call__(self, route: "Route") -> None:
        request = route.request
        url = request.url
        if not self.served_document and url == self.document.url:
            # The page itself: the very response the network checks judged, not a second fetch.
            self.served_document = True
            self._fulfil(route, self.document)
            return
        if request.method not in ("GET", "HEAD"):
            self._refuse(route, url, f"{request.method} requests are not sent")
            return
        if not url.startswith(("http://", "https://")):
            self._refuse(route, url, "not an http or https address")
            return
        if self.rendered.requests >= RENDER_MAX_REQUESTS or self.bytes >= RENDER_MAX_BYTES:
            self._refuse(route, url, "over the rendering budget")
            return
        self.rendered.requests += 1
        try:
            fetched = self.fetcher.fetch(url, method=request.method, max_bytes=RENDER_MAX_BYTES - self.bytes)
        except AnalysisError as exc:
            self._refuse(route, url, exc.message)
            return
        self.bytes += len(fetched.body)
        self._fulfil(route, fetched)

    def _fulfil(self, route: "Route", fetched: Fetched) -> None:
        self.wire_bytes[route.request.url] = wire_size(fetched)
        headers = {name: value for name, value in fetched.headers.items() if name.lower() not in HOP_HEADERS}
        route.fulfill(status=fetched.status, headers=headers, body=fetched.body)

    def _refuse(self, route: "Route", url: str, reason: str) -> None:
        if len(self.rendered.refused) < 50:
            self.rendered.refused.append({"url": url[:200], "reason": reason})
        route.abort("blockedbyclient")
