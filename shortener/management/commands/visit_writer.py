import os
import sys

from django.core.management.base import BaseCommand

from shortener.fastpath.visit_writer import serve
from shortener.fastpath.visits import write_visits


class Command(BaseCommand):
    help = "Write the visit batches a web process sends on stdin (started by the web process itself)."
    requires_system_checks = []

    def handle(self, *args, **options):
        # The answers go to the pipe that was stdout; anything printed goes to stderr instead.
        replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
        serve(sys.stdin.buffer, replies, write_visits)
