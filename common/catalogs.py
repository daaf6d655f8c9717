"""The project's gettext catalogs: where they are, and compiling them without gettext's tools.

`make run`, `make test`, CI and the container image compile the `.po` files to `.mo` with polib
(common/management/commands/compile_catalogs.py), so that a machine with only Python serves every
language (the README's promise); `.mo` files are never committed.
"""

import os
import tempfile
from pathlib import Path

import polib
from django.apps import apps
from django.conf import settings


def locale_dirs() -> list[Path]:
    """The top-level locale/ (LOCALE_PATHS) and each of the project's own apps' locale/."""
    base = Path(settings.BASE_DIR)
    # Only apps at the top of the repository: installed packages (allauth, DRF…) bring their own .mo.
    own_apps = [Path(app.path) for app in apps.get_app_configs() if Path(app.path).parent == base]
    candidates = [Path(path) for path in settings.LOCALE_PATHS] + [path / "locale" for path in own_apps]
    return [path for path in dict.fromkeys(candidates) if path.is_dir()]


def catalogs() -> list[Path]:
    """Every .po file of the project, e.g. locale/fr/LC_MESSAGES/django.po."""
    return sorted(po for directory in locale_dirs() for po in directory.glob("*/LC_MESSAGES/*.po"))


def is_stale(po: Path) -> bool:
    mo = po.with_suffix(".mo")
    return not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime


def compile_catalog(po: Path) -> Path:
    """Write the .mo beside the .po, whole or not at all.

    Through a temporary file and a rename: CI's two test passes, or a server reading the catalog,
    never see half a file. polib leaves fuzzy entries out, as msgfmt does.
    """
    mo = po.with_suffix(".mo")
    catalog = polib.pofile(str(po))
    descriptor, temporary = tempfile.mkstemp(dir=po.parent, prefix=".", suffix=".mo.tmp")
    os.close(descriptor)
    try:
        catalog.save_as_mofile(temporary)
        os.chmod(temporary, 0o644)
        os.replace(temporary, mo)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return mo
