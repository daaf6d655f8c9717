"""The fast path sits beside the views it bypasses, not below them.

shortener/fastpath/ answers visits in front of Django (config/wsgi.py), so it may use
the shortener's models, services and plain helpers, never its views, URLconf or
request negotiation: a change there must not reach the redirect by surprise.
"""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import shortener.fastpath

FASTPATH_DIR = Path(shortener.fastpath.__file__).parent
PROJECT_DIR = FASTPATH_DIR.parents[1]
FORBIDDEN = ("shortener.views", "shortener.urls", "shortener.negotiation")


def imported_modules(path: Path) -> set[str]:
    """Every module `path` imports, `from package import name` counted as `package.name` too."""
    package = "shortener.fastpath"
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against shortener.fastpath
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            modules.add(base)
            modules.update(f"{base}.{alias.name}" for alias in node.names)
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
