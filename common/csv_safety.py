"""CSV cells that a spreadsheet shows as text instead of running them as formulas (CSV injection).

A cell beginning with `=`, `+`, `-` or `@` is a formula to Excel, LibreOffice and Google Sheets, and to
some of them one behind a leading tab or carriage return too; a short link's custom code or tag may
well start with "-" (`-A1-B1`). As OWASP recommends, every CSV the service writes puts a single quote
before such a text cell (`neutralise`), so that it is read as text; an import of our own CSV takes it
away again (`restore`). Numbers are written as they are: a negative number is no formula.
"""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: object) -> object:
    """`value`, with a single quote in front if it is text a spreadsheet would read as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def restore(cell: str) -> str:
    """A cell of our own CSV as it was before `neutralise`.

    Only a quote followed by a formula's start is taken away: that is all `neutralise` adds. A field
    that may itself start with a quote followed by one of those cannot be read back exactly, which is
    why the importer restores only fields that never do (URLs, codes, tags, password hashes).
    """
    if cell.startswith("'") and cell[1:].startswith(FORMULA_STARTS):
        return cell[1:]
    return cell
