"""The documentation a newcomer reads: the README stays short, its links lead somewhere, and every
environment variable the service reads is documented in exactly one table.

The variables are collected from the code that reads them (the env helpers of common/env.py,
os.environ/getenv, the Makefile's user-set variables), not from a list kept here, so a new
setting fails this test until it has its row.
"""

import os
import re
from collections import Counter
from pathlib import Path
from urllib.parse import unquote

PROJECT_DIR = Path(__file__).resolve().parents[2]
README = PROJECT_DIR / "README.md"

# Python that runs in the service, its scripts and its benchmarks (tests set variables, they are no readers).
READER_DIRS = ["config", "common", "reports", "pastes", "shortener", "scripts", "bench"]
ENV_READ = re.compile(
    r"""(?:\benv_(?:str|bool|int|float|list|secret|database)|os\.environ\.get|os\.getenv)\(\s*["']([A-Z][A-Z0-9_]*)["']"""
)
MAKE_DEFAULT = re.compile(r"^([A-Z][A-Z0-9_]*)\s*\?=", re.MULTILINE)  # PORT ?= 8000
MAKE_SHELL_DEFAULT = re.compile(r"\$\$\{([A-Z][A-Z0-9_]*):-")  # "$${PYTHON:-…}"
SKIPPED_DIRS = {"tests", "staticfiles", "node_modules", "__pycache__", "migrations"}

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
BACKTICKED_NAME = re.compile(r"`([A-Z][A-Z0-9_]*)`")


def python_files() -> list[Path]:
    files = []
    for name in READER_DIRS:
        for root, dirs, filenames in os.walk(PROJECT_DIR / name):
            dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(".")]
            files += [Path(root) / filename for filename in filenames if filename.endswith(".py")]
    return files


def variables_read() -> dict[str, str]:
    """Every environment variable the code reads, with the first file that reads it."""
    found: dict[str, str] = {}
    for path in python_files():
        for name in ENV_READ.findall(path.read_text()):
            found.setdefault(name, str(path.relative_to(PROJECT_DIR)))
    makefile = (PROJECT_DIR / "Makefile").read_text()
    for name in MAKE_DEFAULT.findall(makefile) + MAKE_SHELL_DEFAULT.findall(makefile):
        found.setdefault(name, "Makefile")
    return found


def markdown_files() -> list[Path]:
    files = []
    for root, dirs, filenames in os.walk(PROJECT_DIR):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(".")]
        files += [Path(root) / filename for filename in filenames if filename.endswith(".md")]
    return sorted(files)


def variable_tables(text: str) -> list[list[str]]:
    """The first cells of the rows of each table whose first column is headed "Variable"."""
    tables: list[list[str]] = []
    in_table = False
    for line in FENCE.sub("", text).splitlines():
        if not line.startswith("|"):
            in_table = False
            continue
        first_cell = line.split("|")[1].strip()
        if not in_table:  # the header row
            in_table = True
            if first_cell == "Variable":
                tables.append([])
            else:
                tables.append(None)
        elif tables[-1] is not None and not set(first_cell) <= set("-: "):
            tables[-1].append(first_cell)
    return [table for table in tables if table is not None]


def documented_rows() -> Counter:
    """How many rows of variable tables, across every Markdown file, name each variable."""
    rows: Counter = Counter()
    for path in markdown_files():
        for table in variable_tables(path.read_text()):
            for cell in table:
                rows.update(set(BACKTICKED_NAME.findall(cell)))
    return rows


def test_the_collector_finds_what_settings_and_the_makefile_read():
    read = variables_read()
    assert {"LOG_LEVEL", "SECRET_KEY", "DATABASE_CONN_MAX_AGE", "SHORTENER_LOGIN_RATE_PERIOD"} <= set(read)
    assert {"PORT", "WEB_CONCURRENCY", "WEB_THREADS", "PYTHON"} <= set(read)
    assert read["TASKS_BACKEND"] == "config/settings.py"


def test_every_variable_read_is_documented_in_exactly_one_table():
    rows = documented_rows()
    read = variables_read()
    undocumented = sorted(f"{name} (read in {where})" for name, where in read.items() if rows[name] == 0)
    twice = sorted(f"{name} ({rows[name]} rows)" for name in read if rows[name] > 1)
    assert not undocumented, f"not in any | Variable | Default | Meaning | table: {undocumented}"
    assert not twice, f"documented in more than one row: {twice}"


def test_every_documented_variable_is_read_somewhere():
    read = set(variables_read())
    # env_secret("NAME") also reads NAME_FILE.
    readable = read | {f"{name}_FILE" for name in read}
    stale = sorted(set(documented_rows()) - readable)
    assert not stale, f"documented but read by nothing: {stale}"


def test_the_readme_is_read_in_five_minutes():
    assert len(README.read_text().splitlines()) < 150


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: Counter = Counter()
    result = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text())):
        base = slug(heading)
        result.add(base if not seen[base] else f"{base}-{seen[base]}")
        seen[base] += 1
    return result


def relative_links(path: Path) -> list[str]:
    return [
        target
        for target in LINK.findall(FENCE.sub("", path.read_text()))
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target)  # http:, https:, mailto:
    ]


def linked_documents() -> list[Path]:
    """README.md and every Markdown file reachable from it by relative links."""
    todo, seen = [README], []
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.append(path)
        for target in relative_links(path):
            file_part = unquote(target.split("#", 1)[0])
            linked = (path.parent / file_part).resolve() if file_part else path
            if linked.suffix == ".md" and linked.is_file():
                todo.append(linked)
    return seen


def test_every_relative_link_in_the_readme_and_the_documents_it_links_resolves():
    documents = linked_documents()
    assert {PROJECT_DIR / "docs" / "architecture.md", PROJECT_DIR / "docs" / "deployment.md"} <= set(documents)
    broken = []
    for path in documents:
        for target in relative_links(path):
            file_part, _, anchor = target.partition("#")
            linked = (path.parent / unquote(file_part)).resolve() if file_part else path
            where = f"{path.relative_to(PROJECT_DIR)}: {target}"
            if not linked.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and (linked.suffix != ".md" or anchor not in anchors(linked)):
                broken.append(f"{where} (no such heading)")
    assert not broken, "\n".join(broken)


def test_the_slug_follows_github():
    assert slug("The redirect's fast path (`shortener/fastpath/`)") == "the-redirects-fast-path-shortenerfastpath"
    assert slug("After `make run`") == "after-make-run"
    assert slug("Report pages (`/reports/…`)") == "report-pages-reports"


# A reference says what holds today: one current table per benchmark, its history in git.
LINE_LIMITS = {
    "bench/README.md": 400,
    "docs/scale.md": 250,
    "reports/README.md": 350,
    "pastes/README.md": 350,
    "shortener/README.md": 350,
}


def test_the_reference_documents_stay_within_their_line_limits():
    too_long = {
        name: lines
        for name, limit in LINE_LIMITS.items()
        if (lines := len((PROJECT_DIR / name).read_text().splitlines())) > limit
    }
    assert not too_long, f"over the limit (lines): {too_long}; move history to git and name the commit"


def test_every_app_readme_has_a_line_limit():
    apps = {path.parent.name for path in PROJECT_DIR.glob("*/README.md") if (path.parent / "apps.py").exists()}
    assert apps and {f"{app}/README.md" for app in apps} <= set(LINE_LIMITS)


RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$")
CHANGE_KINDS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_the_changelog_keeps_a_changelog():
    lines = (PROJECT_DIR / "CHANGELOG.md").read_text().splitlines()
    sections = [line for line in lines if line.startswith("## ")]
    kinds = {line[4:] for line in lines if line.startswith("### ")}
    releases = [RELEASE.match(line) for line in sections[1:]]

    assert lines[0] == "# Changelog"
    assert sections[0] == "## [Unreleased]"
    assert releases and all(releases), f"not '## [X.Y.Z] - YYYY-MM-DD': {sections[1:]}"
    versions = [tuple(int(part) for part in match.group(1).split(".")) for match in releases]
    assert versions == sorted(versions, reverse=True), "newest release first"
    assert [match.group(2) for match in releases] == sorted((m.group(2) for m in releases), reverse=True)
    assert kinds <= CHANGE_KINDS, f"Keep a Changelog's kinds of change only: {kinds - CHANGE_KINDS}"
