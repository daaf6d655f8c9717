"""bench/engine_corpus.py's split: drawn once, then only read; added pages get a draw of their own (issue 21)."""

import json

import pytest

from bench import engine_corpus


@pytest.fixture
def split_file(tmp_path, monkeypatch):
    path = tmp_path / "split.json"
    monkeypatch.setattr(engine_corpus, "SPLIT", path)
    return path


def manifest(names):
    return [{"file": f"{name}.html"} for name in names]


def test_the_first_draw_puts_three_pages_in_five_in_the_calibration_part(split_file):
    split = engine_corpus.load_split(manifest(range(50)))

    assert (len(split["calibration"]), len(split["held_out"])) == (30, 20)
    assert sorted(split["calibration"] + split["held_out"]) == sorted(f"{n}.html" for n in range(50))
    assert json.loads(split_file.read_text()) == split
    assert "added" not in split


def test_added_pages_are_drawn_apart_and_no_page_changes_part(split_file):
    first = engine_corpus.load_split(manifest(range(50)))

    split = engine_corpus.load_split(manifest(range(60)))

    added = {f"{n}.html" for n in range(50, 60)}
    assert set(first["calibration"]) <= set(split["calibration"])
    assert set(first["held_out"]) <= set(split["held_out"])
    assert (len(added & set(split["calibration"])), len(added & set(split["held_out"]))) == (6, 4)
    assert split["added"] == [{"seed": engine_corpus.SPLIT_SEED + 1, "pages": 10}]
    # Read again, nothing moves.
    assert engine_corpus.load_split(manifest(range(60))) == split
