"""The browsers this test process's renderers run (reports/analysis/rendering.py)."""

import os
from pathlib import Path

from reports.analysis.rendering import process_tree


def own_browsers() -> set[int]:
    """The pids of the browsers this process launched to render: only a browser carries the marker switch.

    Only this process's descendants (other test runs on the machine render too), and not a child
    the browser has forked but not yet replaced by its program (whose command line is still the
    browser's).
    """
    marked = {}
    for pid in process_tree(os.getpid()):
        try:
            if b"--webtools-render=" in Path(f"/proc/{pid}/cmdline").read_bytes():
                stat = Path(f"/proc/{pid}/stat").read_bytes()
                marked[pid] = int(stat.rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue  # ended meanwhile
    return {pid for pid, parent in marked.items() if parent not in marked}
