"""common.csv_safety: what every CSV the service writes does to cells a spreadsheet would run as formulas."""

import pytest

from common.csv_safety import neutralise, restore


@pytest.mark.parametrize("cell", ["=1+1", "+1", "-A1-B1", "@SUM(A1)", "\t=1", "\r=1", "-"])
def test_a_cell_starting_like_a_formula_gets_a_quote_first_and_restore_takes_it_away(cell):
    assert neutralise(cell) == "'" + cell
    assert restore(neutralise(cell)) == cell


@pytest.mark.parametrize("value", ["https://a.example/", "work", "", " =1", "'quoted", -5, 3, None])
def test_text_that_is_no_formula_and_numbers_are_left_as_they_are(value):
    assert neutralise(value) == value


@pytest.mark.parametrize("cell", ["'quoted", "'", "plain", ""])
def test_restore_leaves_a_quote_that_neutralise_did_not_add(cell):
    assert restore(cell) == cell
