"""The translation catalogs are complete (issue 48): every marked string is in every catalog, translated, and
none is fuzzy.

`makemessages` runs in a temporary copy of the repository, as a translator would run it, and its
result is compared with the committed catalogs (locale/ and each app's locale/). It needs gettext's
xgettext: skipped without it, except where REQUIRE_GETTEXT=1 (CI). The service itself compiles
the catalogs with polib and needs no gettext (common/catalogs.py).
"""

import os
import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import django
import polib
import pytest
from django.apps import apps
from django.conf import settings

from common.catalogs import catalogs

ROOT = Path(settings.BASE_DIR)
LANGUAGES = [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
# What makemessages leaves out: not the service's own text. (Never "*/locale": makemessages finds each
# app's catalog by walking into its locale/ directory; ignored, every string would go to locale/.)
IGNORED = [".venv", "staticfiles", "tests", "bench", "node_modules", "media"]
PLURAL_FORMS = {
    "fr": "nplurals=2; plural=(n > 1);",
    "de": "nplurals=2; plural=(n != 1);",
    "es": "nplurals=2; plural=(n != 1);",
}
PLACEHOLDERS = {
    "python-format": re.compile(r"%(?:\([^)]+\))?[-#0 +]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa%]"),
    "python-brace-format": re.compile(r"\{[^{}]*\}"),
}


def _copy_ignored(directory: str, names: list[str]) -> set[str]:
    skipped = {".git", ".venv", "staticfiles", "node_modules", "media", "__pycache__", ".pytest_cache", ".ruff_cache"}
    return {name for name in names if name in skipped or name.endswith((".mo", ".sqlite3"))}


@pytest.fixture(scope="module")
def fresh_catalogs(tmp_path_factory) -> dict[Path, polib.POFile]:
    """The catalogs makemessages makes from the source, by their path in the repository."""
    if not shutil.which("xgettext"):
        if os.environ.get("REQUIRE_GETTEXT"):
            pytest.fail("xgettext is missing: apt-get install gettext")
        pytest.skip("xgettext is missing: apt-get install gettext to check the catalogs")
    copy = tmp_path_factory.mktemp("catalogs") / "repository"
    shutil.copytree(ROOT, copy, ignore=_copy_ignored, symlinks=True)
    command = [sys.executable, "manage.py", "makemessages", "--no-obsolete", "--no-location"]
    command += [f"--locale={language}" for language in LANGUAGES]
    command += [f"--ignore={pattern}" for pattern in IGNORED]
    # Settings load without a SECRET_KEY with DEBUG=1, as in the Makefile.
    environment = {**os.environ, "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "config.settings"}
    subprocess.run(command, cwd=copy, env=environment, check=True, capture_output=True, timeout=300)
    return {po.relative_to(copy): polib.pofile(str(po)) for po in copy.glob("**/locale/*/LC_MESSAGES/django.po")}


def _key(entry: polib.POEntry) -> str:
    return f"{entry.msgctxt}\x04{entry.msgid}" if entry.msgctxt else entry.msgid


def _translations(entry: polib.POEntry) -> list[str]:
    return list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]


def test_every_language_has_a_catalog_wherever_strings_are_marked(fresh_catalogs):
    committed = {po.relative_to(ROOT) for po in catalogs()}

    assert sorted(map(str, set(fresh_catalogs) - committed)) == []


def test_every_marked_string_is_in_every_catalog(fresh_catalogs):
    missing = []
    for path, fresh in fresh_catalogs.items():
        committed = {_key(entry) for entry in polib.pofile(str(ROOT / path))} if (ROOT / path).exists() else set()
        missing += [f"{path}: {entry.msgid!r}" for entry in fresh if _key(entry) not in committed]

    assert missing == []


@cache
def installed_msgids(language: str) -> frozenset[str]:
    """The strings Django and the installed packages (allauth, …) translate themselves in `language`."""
    directories = [Path(django.__file__).parent / "conf" / "locale"]
    directories += [Path(app.path) / "locale" for app in apps.get_app_configs() if Path(app.path).parent != ROOT]
    catalogs = [directory / language / "LC_MESSAGES" / "django.mo" for directory in directories]
    return frozenset(_key(entry) for mo in catalogs if mo.exists() for entry in polib.mofile(str(mo)))


def test_no_catalog_keeps_a_string_the_source_no_longer_marks(fresh_catalogs):
    stale = []
    for path, fresh in fresh_catalogs.items():
        # A string of Django's or a package's may be translated again here, in the glossary's terms.
        kept = {_key(entry) for entry in fresh} | installed_msgids(path.parts[-3])
        if (ROOT / path).exists():
            stale += [f"{path}: {e.msgid!r}" for e in polib.pofile(str(ROOT / path)) if _key(e) not in kept]

    assert stale == []


@pytest.mark.parametrize("po", catalogs(), ids=lambda po: str(po.relative_to(ROOT)))
def test_the_catalog_has_no_untranslated_or_fuzzy_entry(po):
    catalog = polib.pofile(str(po))
    untranslated = [e.msgid for e in catalog if not e.obsolete and not all(_translations(e))]
    fuzzy = [e.msgid for e in catalog if "fuzzy" in e.flags]

    assert untranslated == []
    assert fuzzy == []
    assert not catalog.metadata_is_fuzzy


@pytest.mark.parametrize("po", catalogs(), ids=lambda po: str(po.relative_to(ROOT)))
def test_the_catalog_says_its_language_and_plural_rule(po):
    language = po.parent.parent.name
    metadata = polib.pofile(str(po)).metadata

    assert metadata.get("Language") == language
    assert metadata.get("Plural-Forms") == PLURAL_FORMS[language]


@pytest.mark.parametrize("po", catalogs(), ids=lambda po: str(po.relative_to(ROOT)))
def test_every_translation_keeps_the_placeholders_of_its_english(po):
    wrong = []
    for entry in polib.pofile(str(po)):
        for flag, pattern in PLACEHOLDERS.items():
            if flag not in entry.flags:
                continue
            expected = sorted(pattern.findall(entry.msgid_plural or entry.msgid))
            # A singular may leave out the count ("Un fichier"); every placeholder it has must be English's.
            for index, translation in enumerate(_translations(entry)):
                found = sorted(pattern.findall(translation))
                if found != expected and not (entry.msgid_plural and set(found) <= set(expected) and index == 0):
                    wrong.append(f"{entry.msgid!r} → {translation!r}")

    assert wrong == []
