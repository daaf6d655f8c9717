"""manage.py compile_catalogs: the .po catalogs compiled to .mo with polib, no gettext tools (issue 48)."""

import os
from io import StringIO

import polib
import pytest
from django.core.management import CommandError, call_command


@pytest.fixture
def catalog(settings, tmp_path):
    """A French catalog in a LOCALE_PATHS directory of its own: one entry translated, one fuzzy."""
    settings.LOCALE_PATHS = [tmp_path / "locale"]
    po = tmp_path / "locale" / "fr" / "LC_MESSAGES" / "django.po"
    po.parent.mkdir(parents=True)
    catalog = polib.POFile()
    catalog.metadata = {"Content-Type": "text/plain; charset=UTF-8", "Language": "fr"}
    catalog.append(polib.POEntry(msgid="Sign out", msgstr="Se déconnecter"))
    catalog.append(polib.POEntry(msgid="Sign in", msgstr="S'inscrire", flags=["fuzzy"]))
    catalog.save(str(po))
    return po


def compiled(**options) -> str:
    out = StringIO()
    call_command("compile_catalogs", verbosity=2, stdout=out, **options)
    return out.getvalue()


def test_the_catalog_is_compiled_without_its_fuzzy_entries(catalog):
    assert f"Compiled {catalog}" in compiled()

    mo = {entry.msgid: entry.msgstr for entry in polib.mofile(str(catalog.with_suffix(".mo")))}
    assert mo["Sign out"] == "Se déconnecter"
    assert "Sign in" not in mo


def test_only_a_catalog_changed_since_its_mo_is_compiled_again(catalog):
    compiled()

    assert f"Compiled {catalog}" not in compiled()
    later = catalog.with_suffix(".mo").stat().st_mtime + 10
    os.utime(catalog, (later, later))
    assert f"Compiled {catalog}" in compiled()


def test_force_compiles_every_catalog(catalog):
    compiled()

    assert f"Compiled {catalog}" in compiled(force=True)


def test_a_broken_catalog_stops_the_command_naming_it(catalog):
    catalog.write_text('msgid "Sign out"\nmsgstr "Se "déconnecter"\n', encoding="utf-8")

    with pytest.raises(CommandError, match=str(catalog)):
        compiled()
    assert not catalog.with_suffix(".mo").exists()
