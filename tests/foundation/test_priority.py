"""Background work below the web server on the CPU with Linux's autogroups on (common/priority.py)."""

import os
import subprocess
import sys

import pytest

from common.priority import autogroup_nice

autogroups = pytest.mark.skipif(autogroup_nice(os.getpid()) is None, reason="a kernel with autogroups")
# What analysis_worker does at its start, in a child that then waits to be looked at.
LOWER_ITSELF = """
import os, time
from common.priority import lead_own_session, lower_autogroup
print(lead_own_session() and lower_autogroup(os.getpid(), 7), flush=True)
time.sleep(30)
"""


def start(**popen) -> tuple[subprocess.Popen, str]:
    child = subprocess.Popen([sys.executable, "-c", LOWER_ITSELF], stdout=subprocess.PIPE, text=True, **popen)
    return child, child.stdout.readline().strip()


@autogroups
def test_a_worker_started_beside_the_server_lowers_a_session_of_its_own_not_the_servers():
    ours = autogroup_nice(os.getpid())
    child, lowered = start()
    try:
        assert lowered == "True"
        assert os.getsid(child.pid) == child.pid
        assert autogroup_nice(child.pid) == 7
        assert autogroup_nice(os.getpid()) == ours
    finally:
        child.kill()
        child.wait()


@autogroups
def test_a_worker_started_as_its_own_session_lowers_it():
    child, lowered = start(start_new_session=True)  # as scripts/serve.py starts it
    try:
        assert lowered == "True"
        assert autogroup_nice(child.pid) == 7
    finally:
        child.kill()
        child.wait()


def test_a_worker_in_a_group_of_its_own_inside_the_shells_session_leaves_the_session_alone():
    # A process-group leader cannot start a session; lowering the session it shares would lower the shell's.
    ours = autogroup_nice(os.getpid())
    child, lowered = start(process_group=0)
    try:
        assert lowered == "False"
        assert os.getsid(child.pid) == os.getsid(0)
        assert autogroup_nice(os.getpid()) == ours
    finally:
        child.kill()
        child.wait()
