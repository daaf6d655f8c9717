"""Run the tasks queued in the database (TASKS_BACKEND=database), several at once, until stopped.

django-tasks-db's own `db_worker` runs one task at a time; an analysis mostly waits
on the network, so this worker claims tasks the same way (a row lock that other
workers skip, on any number of machines sharing the database) and runs up to
--threads of them at once, each through django-tasks-db's task runner. Every few
seconds it also queues again the analyses whose worker died
(reports.tasks.requeue_stale_analyses) and runs the projects whose schedule is due
(reports.schedules.run_due_schedules: a row lock again, so each period runs once).

With another backend (TASKS_BACKEND=rq) the queue is the backend's and so are its
workers (`manage.py rqworker --with-scheduler default`), and RQ's scheduler starts the
scheduled runs: this command then only does the sweep, which also queues again a
scheduled run whose RQ job was lost (reports.schedules.queue_overdue_schedules).

SIGTERM or SIGINT stops claiming and lets the running analyses finish within
--stop-grace seconds; those still running then are handed back (queued again under
the next run number, so that the next worker runs them and their late result, if any, is
discarded), the browsers kept warm for renderings are closed, and the worker exits. A
second signal exits at once (what was running is queued again when its lease passes).
"""

import logging
import os
import signal
import socket
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from types import FrameType

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import OperationalError, close_old_connections, connections
from django.tasks import DEFAULT_TASK_BACKEND_ALIAS, task_backends
from django.utils.crypto import get_random_string
from django_tasks_db.backend import DatabaseBackend
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult
from django_tasks_db.utils import exclusive_transaction, is_locked_database_exception

from common.priority import lead_own_session, lower_autogroup
from reports import schedules
from reports.analysis import rendering
from reports.tasks import analyze_report, hand_back_analysis, requeue_stale_analyses
from shortener.moderation import tasks as shortener_tasks

logger = logging.getLogger(__name__)


class AnalysisWorker:
    """Claims ready tasks of one database backend and runs them in a thread pool."""

    def __init__(
        self, *, threads: int, interval: float, backend_name: str, worker_id: str, claims: bool = True
    ) -> None:
        self.claims = claims
        self.threads = threads
        self.interval = interval
        self.backend_name = backend_name
        self.worker_id = worker_id
        self.stopping = threading.Event()
        self._free = threading.Semaphore(threads)
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="analysis")
        # Used only for its run_task(): runs the task and records its outcome and signals.
        self._runner = Worker(
            queue_names=["*"],
            interval=interval,
            batch=False,
            backend_name=backend_name,
            startup_delay=False,
            max_tasks=None,
            worker_id=worker_id,
            excluded_queue_names=[],
        )
        self._sweep_every = min(5.0, settings.REPORTS_ANALYSIS_LEASE / 3)
        self._running: dict[Future, DBTaskResult] = {}

    def run(self, *, stop_grace: float | None = None) -> bool:
        """Work until stopped; return False if analyses still running after `stop_grace` were handed back."""
        if self.claims:
            logger.info("Analysis worker %s runs up to %d tasks at once", self.worker_id, self.threads)
            rendering.warm_up()  # the first report's rendering finds Chromium started
        else:
            logger.info("Analysis worker %s only queues again the analyses of dead workers", self.worker_id)
        next_sweep = 0.0
        try:
            while not self.stopping.is_set():
                if time.monotonic() >= next_sweep:
                    self._sweep()
                    next_sweep = time.monotonic() + self._sweep_every
                if not self.claims:
                    self.stopping.wait(self._sweep_every)
                    continue
                if not self._free.acquire(timeout=self.interval):
                    continue  # every thread is busy
                task_result = self._claim()
                if task_result is None:
                    self._free.release()
                    self.stopping.wait(self.interval)
                else:
                    future = self._pool.submit(self._run, task_result)
                    self._running[future] = task_result
                    future.add_done_callback(self._running.pop)
        finally:
            _, unfinished = wait(list(self._running), timeout=stop_grace)
            for future in unfinished:
                self._hand_back(self._running.get(future))
            rendering.close_browsers()  # those of handed-back analyses killed, so that they stop too
            self._pool.shutdown(wait=not unfinished)
            connections.close_all()
        return not unfinished

    def _hand_back(self, task_result: DBTaskResult | None) -> None:
        if task_result is None or task_result.task_path != analyze_report.module_path:
            return  # finished meanwhile, or not an analysis: its own retry rules apply
        report_id, run = task_result.args_kwargs["args"]
        try:
            if hand_back_analysis(report_id, run):
                logger.warning("Handed back the analysis of report %s: the next worker runs it", report_id)
        except OperationalError:
            logger.exception("Could not hand back report %s's analysis: it is queued when its lease passes", report_id)

    def _sweep(self) -> None:
        try:
            requeue_stale_analyses()
        except OperationalError:
            logger.exception("Could not look for analyses to queue again")
        try:
            if self.claims:
                schedules.run_due_schedules()
            else:
                schedules.queue_overdue_schedules()
        except OperationalError as exc:
            if not is_locked_database_exception(exc):
                logger.exception("Could not run the due schedules")
        except Exception:
            # The period stays due (its transaction rolled back); the worker goes on with the analyses.
            logger.exception("A scheduled run failed")
        try:
            # The shortener's periodic work rides on this sweep (a task queued at most once per period).
            shortener_tasks.enqueue_if_due()
        except Exception:
            logger.exception("Could not queue the short links' blocklist check")

    def _claim(self) -> DBTaskResult | None:
        close_old_connections()
        ready = DBTaskResult.objects.ready().filter(backend_name=self.backend_name)
        # A plain read first: on SQLite the claim's transaction takes the database's one write
        # lock, which an idle worker would otherwise take five times a second.
        if not ready.exists():
            return None
        try:
            with exclusive_transaction(ready.db):
                task_result = ready.get_locked()
                if task_result is not None:
                    task_result.claim(self.worker_id)
        except OperationalError as exc:
            if not is_locked_database_exception(exc):
                logger.exception("Could not claim a task")
            return None
        return task_result

    def _run(self, task_result: DBTaskResult) -> None:
        try:
            self._runner.run_task(task_result)
        finally:
            connections.close_all()  # this thread's connection
            self._free.release()


class Command(BaseCommand):
    help = "Run the analyses (and any other task) queued in the database, several at once, until stopped."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--threads",
            type=int,
            default=settings.REPORTS_WORKER_THREADS,
            help="Tasks run at once (default: REPORTS_WORKER_THREADS, %(default)s).",
        )
        parser.add_argument(
            "--interval", type=float, default=0.2, help="Seconds between looks at an empty queue (%(default)s)."
        )
        parser.add_argument("--backend", default=DEFAULT_TASK_BACKEND_ALIAS, help="The TASKS alias (%(default)s).")
        parser.add_argument(
            "--nice",
            type=int,
            default=settings.REPORTS_WORKER_NICE,
            help="Added to the process's niceness, so that on a shared machine the web server's requests "
            "get the CPU before the analyses' parsing (%(default)s).",
        )
        parser.add_argument(
            "--stop-grace",
            type=float,
            default=5.0,
            help="Seconds the running analyses get to finish after SIGTERM or SIGINT before they are "
            "handed back to the queue (%(default)s; `make run` stops everything within 10 s).",
        )

    def handle(
        self, *, threads: int, interval: float, backend: str, nice: int, stop_grace: float, **options: object
    ) -> None:
        if threads < 1 or interval <= 0 or stop_grace < 0:
            raise CommandError("--threads must be at least 1, --interval above 0 and --stop-grace not negative.")
        if not 0 <= nice <= 19:
            raise CommandError("--nice must be between 0 and 19.")
        os.nice(nice)
        # With Linux's autogroups a niceness only ranks the worker within its session: its
        # session's own niceness ranks it against the web server's (common/priority.py).
        if nice and lead_own_session():
            lower_autogroup(os.getpid(), nice)
        claims = isinstance(task_backends[backend], DatabaseBackend)
        if not claims:
            self.stderr.write(
                f"The {backend!r} task backend has its own workers (TASKS_BACKEND={settings.TASKS_BACKEND}): "
                "this one only queues again the analyses whose worker died."
            )
        worker_id = f"{socket.gethostname()[:40]}-{os.getpid()}-{get_random_string(8)}"
        worker = AnalysisWorker(
            threads=threads, interval=interval, backend_name=backend, worker_id=worker_id, claims=claims
        )

        def stop(signum: int, frame: FrameType | None) -> None:
            if worker.stopping.is_set():
                os._exit(1)  # asked twice: the running analyses are queued again once their lease passes
            self.stderr.write(
                f"{signal.strsignal(signum)}: finishing the running analyses within {stop_grace:g} s "
                "(again to quit now)"
            )
            worker.stopping.set()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        if not worker.run(stop_grace=stop_grace):
            # The threads of the handed-back analyses are still waiting on their pages: leave them.
            sys.stderr.flush()
            os._exit(0)
