"""Wait until every migration is applied, then exit 0; after MIGRATIONS_WAIT_SECONDS, exit 3 saying why.

The image's `web` role runs this before it serves (deploy/entrypoint.sh). Compose starts `web`
once the one-shot `migrate` succeeded, but podman-compose before podman 4.6 starts it regardless,
even when migrate failed: web would then serve code newer than its schema (500s on every new
column). So web waits while migrate runs, and refuses with the reason when it never completes;
the restart policy tries again later. Each try reads the applied migrations anew, in one process.
"""

import os
import sys
import time
from pathlib import Path


def unapplied() -> str | None:
    """What keeps web from serving, or None when every migration of this code is applied."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor
    from django.db.utils import DatabaseError

    try:
        executor = MigrationExecutor(connection)  # reads the applied migrations anew
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError as error:
        return f"the database cannot be read: {str(error).splitlines()[0]}"
    finally:
        connection.close()
    if plan:
        first = plan[0][0]
        return f"{len(plan)} migrations not applied (first: {first.app_label}.{first.name})"
    return None


def main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    wait = float(os.environ.get("MIGRATIONS_WAIT_SECONDS") or 120)
    deadline = time.monotonic() + wait
    said = None
    while (problem := unapplied()) is not None:
        if time.monotonic() >= deadline:
            print(
                f"web: not serving: {problem}. Run the migrate role (`entrypoint.sh migrate`, compose's "
                f"`migrate` service) and look at its log; waited {wait:.0f} s (MIGRATIONS_WAIT_SECONDS).",
                file=sys.stderr,
                flush=True,
            )
            return 3
        if problem != said:
            print(f"web: waiting for migrate: {problem}", file=sys.stderr, flush=True)
            said = problem
        time.sleep(1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
