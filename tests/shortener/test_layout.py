"""Which module may import which.

The fast path sits beside the views it bypasses, not below them: shortener/fastpath/
answers visits in front of Django (config/wsgi.py), so it may use the shortener's
models, services and plain helpers, never its views, URLconf or request negotiation:
a change there must not reach the redirect by surprise.

And no two of the project's modules import each other, not even through an import
inside a function: each dependency goes one way, so a module can be read, loaded and
tested with only what is below it.
"""

import ast
import os
import subprocess
import sys
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import pytest

import shortener.fastpath

FASTPATH_DIR = Path(shortener.fastpath.__file__).parent
PROJECT_DIR = FASTPATH_DIR.parents[1]
FORBIDDEN = ("shortener.views", "shortener.urls", "shortener.negotiation")
PROJECT_PACKAGES = ("config", "common", "accounts", "reports", "pastes", "shortener")


def imports(path: Path, package: str) -> Iterator[tuple[str, list[str]]]:
    """Each import in `path`, at any depth (in a function too): (module, the names taken from it, if any).

    A relative import is resolved against `package`, the package `path` is in.
    """
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            yield from ((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            yield base, [alias.name for alias in node.names]


def imported_modules(path: Path, package: str = "shortener.fastpath") -> set[str]:
    """Every module `path` imports, `from package import name` counted as `package.name` too."""
    modules = set()
    for base, names in imports(path, package):
        modules.add(base)
        modules.update(f"{base}.{name}" for name in names)
    return modules


def is_forbidden(module: str) -> bool:
    return any(module == name or module.startswith(f"{name}.") for name in FORBIDDEN)


@pytest.mark.parametrize("path", sorted(FASTPATH_DIR.glob("*.py")), ids=lambda path: path.name)
def test_no_fastpath_module_imports_the_views_or_the_urls(path):
    assert not {module for module in imported_modules(path) if is_forbidden(module)}


def test_the_check_sees_each_spelling_of_a_forbidden_import(tmp_path):
    source = tmp_path / "sample.py"
    source.write_text(
        "import shortener.views.links\nfrom shortener import urls\nfrom ..negotiation import success\n"
        "from shortener.views.base import short_url\n"
    )

    found = {module for module in imported_modules(source) if is_forbidden(module)}

    assert found >= {"shortener.views.links", "shortener.urls", "shortener.negotiation", "shortener.views.base"}


def test_loading_the_wsgi_shortcut_loads_neither_views_nor_urls():
    # Also indirectly, through a service or helper it imports.
    code = (
        "import sys, django; django.setup(); import shortener.fastpath.wsgi; "
        f"print(sorted(m for m in sys.modules if m.startswith({FORBIDDEN!r})))"
    )
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=PROJECT_DIR,
        env={**clean, "SECRET_KEY": "x" * 50},
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def project_modules(root: Path, packages: tuple[str, ...] = PROJECT_PACKAGES) -> dict[str, Path]:
    """The project's modules by dotted name (migrations left out: Django loads them, no module imports them)."""
    modules = {}
    for package in packages:
        for path in (root / package).rglob("*.py"):
            if "migrations" not in path.parts:
                parts = path.relative_to(root).with_suffix("").parts
                modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Which project modules each one imports: `from x import y` is x.y when that is a module, else x."""
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for base, names in imports(path, package):
            submodules = {f"{base}.{name}" for name in names} & modules.keys()
            if len(submodules) < len(names) or not names:  # some names are not submodules: base itself
                targets.add(base)
            targets |= submodules
        graph[name] = (targets & modules.keys()) - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The shortest circle back to each module that has one, as [a, b, …, a]; each circle once."""
    found: dict[frozenset[str], list[str]] = {}
    for start in sorted(graph):
        came_from = {}
        queue = deque([start])
        while queue and start not in came_from:
            module = queue.popleft()
            for target in sorted(graph[module]):
                if target not in came_from:
                    came_from[target] = module
                    queue.append(target)
        if start in came_from:
            path = [start]
            while len(path) == 1 or path[-1] != start:
                path.append(came_from[path[-1]])
            found.setdefault(frozenset(path), path[::-1])
    return list(found.values())


def test_no_two_project_modules_import_each_other():
    circles = cycles(import_graph(project_modules(PROJECT_DIR)))

    assert not circles, "Import circles:\n" + "\n".join(" -> ".join(circle) for circle in circles)


def test_the_check_sees_a_circle_closed_by_an_import_inside_a_function(tmp_path):
    package = tmp_path / "app"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from app.sub import lower\n")
    (package / "upper.py").write_text("from app.sub import lower\n")
    (package / "sub" / "lower.py").write_text("def late():\n    from .. import upper\n")
    (package / "alone.py").write_text("import app.sub\nfrom app.sub import lower, NAME\n")

    graph = import_graph(project_modules(tmp_path, ("app",)))

    assert graph["app.alone"] == {"app.sub", "app.sub.lower"}  # NAME is not a module: app.sub's
    assert graph["app.upper"] == {"app.sub.lower"}  # a submodule, not its package
    assert cycles(graph) == [["app.sub.lower", "app.upper", "app.sub.lower"]]
