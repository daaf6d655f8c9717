"""Syntax highlighting of a paste's HTML page, with Pygments.

Pygments is the highlighter of dpaste and pinnwand, knows ~600 languages and can
guess one from the text. It only emits class names (no inline style), so the page
keeps the site's CSP; the colours are in static/pastes/highlight.css.
"""

from functools import lru_cache

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import pgettext
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_all_lexers, get_lexer_by_name
from pygments.util import ClassNotFound

from common import parsers

# Guessing runs these languages' analysers over the start of the text. Pygments' own
# guess_lexer tries all ~600 and often picks an exotic one (Python came out as "Tera Term
# macro"), and plain text is a better answer than a wrong language.
GUESS_SYNTAXES = (
    "python", "bash", "diff", "html", "xml", "php", "c", "cpp", "java", "javascript", "typescript", "go", "rust",
    "ruby", "perl", "sql", "css", "yaml", "toml", "ini", "dockerfile", "markdown", "rst", "lua", "csharp",
)  # fmt: skip
GUESS_SAMPLE_CHARS = 20_000
# Highlighting a huge paste would take seconds of CPU; beyond this it is shown as plain text.
HIGHLIGHT_MAX_CHARS = 500_000


@lru_cache(maxsize=1)
def known_syntaxes() -> list[str]:
    """Every language name Pygments knows (its lexers' aliases): what `syntax` accepts."""
    return sorted({alias for _name, aliases, _patterns, _mimetypes in get_all_lexers() for alias in aliases})


@lru_cache(maxsize=1024)
def is_known_syntax(name: str) -> bool:
    try:
        get_lexer_by_name(name)
    except ClassNotFound:
        return False
    return True


def lexer_for(content: str, syntax: str = "") -> Lexer:
    """The lexer of `syntax`, else one guessed from the content, else plain text."""
    if syntax and is_known_syntax(syntax):
        return get_lexer_by_name(syntax, stripnl=False, ensurenl=False)
    return get_lexer_by_name(guess_syntax(content), stripnl=False, ensurenl=False)


def guess_syntax(content: str) -> str:
    """A Pygments name for the content's language; "text" when no analyser recognises it."""
    if len(content) > HIGHLIGHT_MAX_CHARS:
        return "text"
    if content.lstrip()[:1] in ("{", "["):
        # The shared parser: the standard library's recursed into a 100,000-deep paste (its page was a 500).
        try:
            parsers.loads(content)
        except parsers.MalformedJSON:
            pass
        else:
            return "json"
    sample = content[:GUESS_SAMPLE_CHARS]
    score, name = max((get_lexer_by_name(name).analyse_text(sample), name) for name in GUESS_SYNTAXES)
    return name if score > 0 else "text"


def highlighted(content: str, lexer: Lexer, *, anchors: str = "L") -> SafeString:
    """The content as HTML lines with line numbers (a table, so copying the code skips them).

    `anchors` prefixes the lines' ids (L-1, …); each file of a many-file paste has its own.
    """
    formatter = HtmlFormatter(
        linenos="table", cssclass="highlight", lineanchors=anchors, anchorlinenos=True, wrapcode=True
    )
    # Pygments escapes the text itself.
    return mark_safe(highlight(content, lexer, formatter))


def language_name(lexer: Lexer) -> str:
    """The name a page shows for the text's language: a programming language's own name, but
    Pygments' "Text only" (plain text) in the reader's language."""
    return pgettext("pastes", "Plain text") if "text" in lexer.aliases else lexer.name
