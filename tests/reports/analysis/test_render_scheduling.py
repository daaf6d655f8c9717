"""How renderings share the machine with the web server: a few at a time, Chromium at SCHED_IDLE."""

import os
import subprocess
import sys
import threading
import time

import pytest

from reports.analysis import rendering

linux_only = pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="SCHED_IDLE is Linux's")


def start_child() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])


def policy_of(pid: int) -> int:
    return os.sched_getscheduler(pid)


@linux_only
def test_processes_started_for_a_rendering_run_at_idle_priority_and_the_thread_gets_its_own_back(settings):
    settings.REPORTS_RENDER_PRIORITY = "idle"
    thread = threading.get_native_id()
    before = policy_of(thread)
    with rendering.idle_children():
        child = start_child()
    try:
        assert policy_of(child.pid) == os.SCHED_IDLE
        # What the child starts inherits it too, as Chromium's processes do from Playwright's driver.
        assert policy_of(thread) == before
    finally:
        child.kill()
        child.wait()


@linux_only
def test_with_normal_priority_renderings_compete_like_everything_else(settings):
    settings.REPORTS_RENDER_PRIORITY = "normal"
    with rendering.idle_children():
        child = start_child()
    try:
        assert policy_of(child.pid) == policy_of(threading.get_native_id()) != os.SCHED_IDLE
    finally:
        child.kill()
        child.wait()


def test_renderings_past_the_concurrency_wait_their_turn(monkeypatch):
    running, most, lock = 0, 0, threading.Lock()

    def one_rendering(document):
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.2)
        with lock:
            running -= 1
        return document

    monkeypatch.setattr(rendering, "_render_slots", threading.BoundedSemaphore(2))
    monkeypatch.setattr(rendering, "_render_in_thread", one_rendering)
    results: list[str] = []
    threads = [threading.Thread(target=lambda n=n: results.append(rendering.render(f"page {n}"))) for n in range(5)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [f"page {n}" for n in range(5)]
    assert most == 2
    assert time.monotonic() - started >= 0.6  # three turns of 0.2 s: 2 + 2 + 1


STUCK_RENDERING = """
import time
import django
django.setup()
from django.conf import settings
from reports.analysis import rendering
# A Playwright call that never returns, as one on a browser the memory watch killed may not.
rendering._render = lambda renderer, document, budget, watch: time.sleep(3600)
settings.REPORTS_RENDER_TIMEOUT = 1
rendering.LAUNCH_TIMEOUT = -10  # without the grace the wait adds for the browser's start
try:
    rendering._render_in_thread(None)
except rendering.RenderError as error:
    print(error, flush=True)
"""


def test_a_rendering_stuck_past_its_time_does_not_keep_the_process_from_exiting():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    started = time.monotonic()

    finished = subprocess.run(
        [sys.executable, "-c", STUCK_RENDERING], env=env, capture_output=True, text=True, timeout=60
    )

    assert finished.stdout.strip() == "rendering took longer than 1 seconds"
    assert finished.returncode == 0
    assert time.monotonic() - started < 30  # its thread was joined at exit before: for ever


def test_a_rendering_stuck_on_a_browser_the_memory_watch_killed_ends_at_once_with_that_cause(monkeypatch, settings):
    settings.REPORTS_RENDER_TIMEOUT = 30
    settings.REPORTS_RENDER_MAX_TOTAL_MB = 20
    released = threading.Event()

    def stuck_after_the_kill(renderer, document, budget, watch):
        watch.exceeded = True  # as the watch leaves it once it has killed the browser's processes
        released.wait(60)  # a Playwright call that waits out the rendering's time (Chromium 156)

    monkeypatch.setattr(rendering, "_render", stuck_after_the_kill)
    started = time.monotonic()
    try:
        with pytest.raises(rendering.RenderError, match=r"^the browser used more than 20 MB of memory$"):
            rendering.render(None)
    finally:
        released.set()
    assert time.monotonic() - started < rendering.KILLED_GRACE + 5  # not the 30 s + 40 s of grace


@pytest.mark.skipif(not rendering.chromium_installed(), reason="needs Chromium")
@pytest.mark.skipif(not os.path.exists("/proc/self/autogroup"), reason="a kernel with autogroups")
def test_the_browsers_sessions_get_the_lowest_autogroup_niceness_at_idle_priority(settings):
    # With Linux's autogroups SCHED_IDLE only ranks Chromium within the session Playwright starts it in.
    from common.priority import autogroup_nice

    settings.REPORTS_RENDER_PRIORITY = "idle"
    ours = autogroup_nice(os.getpid())
    renderer = rendering._Renderer()

    def launch_and_look() -> tuple[int, set[int | None]]:  # in the renderer's thread, as a rendering is
        renderer.browser()
        browser = rendering._find_browser(renderer.marker)
        return browser, {autogroup_nice(pid) for pid in rendering.process_tree(browser)}

    try:
        ok, answer = renderer.run(launch_and_look).get(timeout=60)
        assert ok, answer
        browser, nices = answer

        assert os.getsid(browser) != os.getsid(0)
        assert nices == {19}
        assert autogroup_nice(os.getpid()) == ours
    finally:
        renderer.close(timeout=10)
