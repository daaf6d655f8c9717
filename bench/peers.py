"""Our paste read next to a peer's, on the same machine, interleaved: pinnwand (PyPI).

    make bench-peers                 # or: .venv/bin/python -m bench.peers [--rounds 3] [--duration 10]

pinnwand is installed in a virtual environment of its own (bench/.peers, git-ignored; PINNWAND
below), with the same psycopg as ours. Both services run on PostgreSQL (a database each, dropped
and made afresh), with two processes each: ours as `make run` serves it (granian, 2 workers x 4
threads), pinnwand forked after binding (bench/peers_pinnwand.py; its `http` command serves one
process), rate limits lifted on both. Each gets the same 1,000 pastes (the same text, Python).
wrk (32 connections) then reads random pastes of each in turn, `--rounds` times, ours first in odd
rounds: ours `GET /pastes/paste/@<id>` (JSON, counting the view in the database), pinnwand
`GET /json/show/<slug>` (JSON, no view count). A round counts only when each of pinnwand's
processes did at least a fifth of its work (their CPU time, from /proc).
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from importlib.metadata import version
from pathlib import Path

from bench.harness import PROJECT_DIR, manage, recreate_database, run_wrk, server, wait_until_up
from bench.run import service_env

PINNWAND = "pinnwand==1.5.0"
PEERS_DIR = PROJECT_DIR / "bench" / ".peers"
PASTES = 1_000
PROCESSES = 2
CONTENT = "def handler(request):\n    return render(request, 'page.html', {'items': items})\n" * 12
# Each of pinnwand's processes did at least this share of its CPU work in a round (they share one socket).
LEAST_SHARE = 0.2
SEED_OURS = """
import json
from django.contrib.auth import get_user_model
from pastes.models import Paste, generate_paste_id
user = get_user_model().objects.create_user(username="peers")
content = open({content_file!r}, encoding="utf-8").read()
pastes = Paste.objects.bulk_create(
    [Paste(id=generate_paste_id(), owner=user, name=f"Snippet {{n}}", content=content, syntax="python")
     for n in range({count})]
)
print(json.dumps([paste.id for paste in pastes]))
"""


def pinnwand_python() -> Path:
    """The Python of pinnwand's virtual environment, made and filled when missing."""
    venv = PEERS_DIR / "pinnwand"
    python = venv / "bin" / "python"
    marker = venv / f".installed-{PINNWAND}"
    if not marker.exists():
        print(f"Installing {PINNWAND} in {venv} …", flush=True)
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        packages = [PINNWAND, f"psycopg[binary]=={version('psycopg')}"]
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", *packages], check=True)
        marker.touch()
    return python


def sqlalchemy_url(url: str) -> str:
    return url.replace("postgres://", "postgresql+psycopg://", 1)


@contextmanager
def pinnwand_server(python: Path, *, port: int, env: dict[str, str]):
    command = [str(python), str(PROJECT_DIR / "bench" / "peers_pinnwand.py"), "serve", str(port), str(PROCESSES)]
    # A process group of its own, so that stopping it stops the processes it forked; not a session
    # of its own: with Linux's autogroups wrk's niceness must rank it below pinnwand as below ours.
    process = subprocess.Popen(command, env=env, process_group=0)
    try:
        wait_until_up(f"http://127.0.0.1:{port}/", process)
        yield process
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)


def children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=10, help="seconds per measurement (default 10)")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--port", type=int, default=8821, help="ours; pinnwand's is the next one")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("BENCH_PEERS_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench_peers"),
        help="a PostgreSQL URL whose database (ours) and <name>_pinnwand (the peer's) are dropped and made afresh",
    )
    args = parser.parse_args()

    python = pinnwand_python()
    ours_url, peer_url = args.database_url, f"{args.database_url}_pinnwand"
    env = service_env(ours_url)
    peer_env = {"PATH": os.environ["PATH"], "PINNWAND_DATABASE_URI": sqlalchemy_url(peer_url)}
    wrk = {"duration": args.duration, "connections": args.connections, "threads": 4, "script": "paths.lua"}
    with tempfile.TemporaryDirectory() as tmp:
        content_file = Path(tmp) / "content.py"
        content_file.write_text(CONTENT)
        print(f"Seeding {PASTES} pastes in each service …", flush=True)
        for url in (ours_url, peer_url):
            recreate_database(url)
        manage(env, "migrate", "--noinput", "-v0")
        manage(env, "collectstatic", "--noinput", "-v0")
        ours = json.loads(
            manage(env, "shell", "-c", SEED_OURS.format(content_file=str(content_file), count=PASTES)).splitlines()[-1]
        )
        seeded = subprocess.run(
            [str(python), str(PROJECT_DIR / "bench" / "peers_pinnwand.py"), "seed", str(PASTES), str(content_file)],
            env=peer_env,
            capture_output=True,
            text=True,
            check=True,
        )
        slugs = json.loads(seeded.stdout.splitlines()[-1])
        paths = {
            "ours": Path(tmp) / "ours.txt",
            "pinnwand": Path(tmp) / "pinnwand.txt",
        }
        paths["ours"].write_text("".join(f"/pastes/paste/@{paste_id}\n" for paste_id in ours))
        paths["pinnwand"].write_text("".join(f"/json/show/{slug}\n" for slug in slugs))

        rows = []
        with (
            server(
                "config.asgi:application",
                port=args.port,
                workers=PROCESSES,
                threads=4,
                env=env,
                ready_path="/healthz",
                interface="asgi",
            ) as ours_base,
            pinnwand_server(python, port=args.port + 1, env=peer_env) as peer,
        ):
            bases = {"ours": ours_base, "pinnwand": f"http://127.0.0.1:{args.port + 1}"}
            for round_number in range(1, args.rounds + 1):
                order = ["ours", "pinnwand"] if round_number % 2 else ["pinnwand", "ours"]
                measured, shares = {}, []
                for name in order:
                    print(f"Round {round_number}: {name} …", flush=True)
                    before = {pid: cpu_ticks(pid) for pid in children(peer.pid)}
                    measured[name] = run_wrk(bases[name], args=[str(paths[name])], **wrk)
                    if name == "pinnwand":
                        work = [cpu_ticks(pid) - ticks for pid, ticks in before.items()]
                        shares = [ticks / max(1, sum(work)) for ticks in work]
                rows.append((round_number, measured, shares))
    print_table(rows, args)
    return 0


def print_table(rows: list, args: argparse.Namespace) -> None:
    print()
    print(
        f"{args.duration}s each, {args.connections} connections, {PASTES} pastes each, PostgreSQL, "
        f"{PROCESSES} processes each; ours GET /pastes/paste/@<id>, pinnwand GET /json/show/<slug>"
    )
    header = (
        f"{'round':>5} {'ours req/s':>11} {'p50':>7} {'p99':>7} {'errors':>6} "
        f"{'pinnwand req/s':>15} {'p50':>7} {'p99':>7} {'errors':>6} {'ours/pinnwand':>14}  pinnwand's processes"
    )
    print(header)
    print("-" * len(header))
    for round_number, measured, shares in rows:
        ours, peer = measured["ours"], measured["pinnwand"]
        both = all(share >= LEAST_SHARE for share in shares) and len(shares) == PROCESSES
        split = " / ".join(f"{share:.0%}" for share in shares) + ("" if both else " (NOT BOTH WORKING)")
        print(
            f"{round_number:>5} {ours.requests_per_second:>11.0f} {ours.p50_ms:>7.1f} {ours.p99_ms:>7.1f} "
            f"{ours.errors:>6} {peer.requests_per_second:>15.0f} {peer.p50_ms:>7.1f} {peer.p99_ms:>7.1f} "
            f"{peer.errors:>6} {ours.requests_per_second / peer.requests_per_second:>13.2f}x  {split}"
        )
    print("Target: ours ≥ 1.5x pinnwand's, view counting included.")


if __name__ == "__main__":
    os.chdir(PROJECT_DIR)
    sys.exit(main())
