#!/bin/sh
# The image's one entrypoint (docs/deployment.md, "Containers"). The first argument is the role:
#   web            granian serving config.asgi, as `make run` serves it (PORT, WEB_CONCURRENCY, WEB_THREADS),
#                  once every migration is applied (it waits up to MIGRATIONS_WAIT_SECONDS for `migrate`)
#   worker         the analysis worker TASKS_BACKEND needs (analysis_worker, or rqworker with rq)
#   migrate        manage.py migrate, once per release before the new web and workers start
#   serve          one container for everything (SQLite): migrate, then web and worker through scripts/serve.py
#   manage ARGS…   any manage.py command, e.g. `manage createsuperuser`
# Anything else is run as a command. Configuration comes only from the environment (and NAME_FILE for secrets).
set -eu
cd "$(dirname "$0")/.."  # /app in the image

role="${1:-web}"
[ "$#" -gt 0 ] && shift

web_command() {
    # --host 0.0.0.0: the container's port is published (or the host network is used); the
    # flags are the Makefile's, see docs/deployment.md "Serving".
    set -- granian --interface asgi config.asgi:application --host "${HOST:-0.0.0.0}" --port "${PORT:-8000}" \
        --workers "${WEB_CONCURRENCY:-$(nproc)}" --blocking-threads 1 --access-log \
        --respawn-failed-workers --respawn-interval 1 --workers-kill-timeout 5
    echo "$@"
}

wait_for_database() {
    # The database container may run before it accepts connections (and podman-compose before
    # podman 4.6 does not wait for its healthcheck): try for up to 60 s, then let migrate say why.
    python - <<'PY'
import time

import django

django.setup()
from django.db import connection
from django.db.utils import OperationalError

deadline = time.monotonic() + 60
while True:
    try:
        connection.ensure_connection()
        break
    except OperationalError as error:
        if time.monotonic() > deadline:
            break
        print(f"waiting for the database: {error}".splitlines()[0], flush=True)
        time.sleep(1)
PY
}

wait_for_migrations() {
    # Web never serves a schema older than its code (scripts/wait_for_migrations.py says why).
    python scripts/wait_for_migrations.py
}

case "$role" in
    web)
        wait_for_migrations
        # shellcheck disable=SC2046
        exec $(web_command) "$@"
        ;;
    worker)
        if [ "${TASKS_BACKEND:-database}" = "rq" ]; then
            # RQ's workers run the analyses; run one `manage analysis_worker` beside them to sweep leases.
            exec python manage.py rqworker --with-scheduler default "$@"
        fi
        exec python manage.py analysis_worker "$@"
        ;;
    migrate)
        wait_for_database
        exec python manage.py migrate --noinput "$@"
        ;;
    serve)
        wait_for_database
        python manage.py migrate --noinput
        # shellcheck disable=SC2046
        exec python scripts/serve.py -- $(web_command) "$@"
        ;;
    manage)
        exec python manage.py "$@"
        ;;
    *)
        exec "$role" "$@"
        ;;
esac
