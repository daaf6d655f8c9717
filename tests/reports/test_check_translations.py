"""Every check of the engine has a name and advice in every language (issue 48), and every sentence
the engine stores is shown translated on the pages."""

import pytest
from django.utils import translation

from reports import presentation, stored_messages
from reports.advice import ADVICE
from reports.analysis.checks import CATEGORIES
from reports.analysis.checks.security import _csp_weaknesses
from tests.i18n import kept_terms

LANGUAGES = ["fr", "de", "es"]
CHECK_KEYS = [check.key for category in CATEGORIES for check in category.checks]
# Names that are file names or protocols: the same in every language.
SAME_IN_EVERY_LANGUAGE = {"robots", "llms_txt", "http2"}
# One sentence for each pattern of stored_messages, as the engine writes it.
ENGINE_SENTENCES = [
    "The page did not answer within 10 seconds.",
    "The URL redirected more than 10 times.",
    "Could not open a TLS connection to a.example: timed out.",
    "The TLS handshake with a.example failed (certificate has expired).",
    "Could not connect to a.example (Connection refused).",
    "The URL redirected to an invalid address (bad port).",
    "The connection to a.example failed (RemoteProtocolError).",
    "Fetching from a.example failed (boom).",
    "'http://[' is not a valid URL.",
    "The URL redirected to ftp://a.example/, which is not an http or https address.",
    "Only http and https URLs can be analysed.",
    "The URL has no host name.",
    "The port 99999 is not a valid port number.",
    "The URL does not point to an HTML page (content type image/png).",
    "The page is larger than the 5 MB limit.",
    "The address 10.0.0.1 is private; fetching it is not allowed.",
    "Could not resolve host a.example.",
    "The answer from a.example uses an unsupported compression (lzma).",
    "The answer from a.example is compressed incorrectly (invalid block).",
    "The page answered with HTTP status 503 (Service Unavailable).",
    "not checked",
    "robots.txt answered HTTP 503",
    "(empty href)",
    "(no src)",
    "(no URL)",
    *_csp_weaknesses("img-src 'self'"),
    *_csp_weaknesses("script-src 'unsafe-inline' *"),
]


def test_every_check_of_the_engine_has_a_name_and_advice():
    assert set(CHECK_KEYS) - set(presentation.CHECK_LABELS) == set()
    assert set(CHECK_KEYS) - set(ADVICE) == set()


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("key", CHECK_KEYS)
def test_every_checks_name_and_advice_are_translated(key, language):
    with translation.override("en"):
        english = (presentation.humanize(key), str(ADVICE[key].why), str(ADVICE[key].fix))
    with translation.override(language):
        translated = (presentation.humanize(key), str(ADVICE[key].why), str(ADVICE[key].fix))

    assert translated[1:] != english[1:] and translated[1] != english[1] and translated[2] != english[2]
    # A name the language writes as English does is a row of its glossary (French "Minification").
    assert translated[0] != english[0] or key in SAME_IN_EVERY_LANGUAGE or english[0].lower() in kept_terms(language)


@pytest.mark.parametrize("language", LANGUAGES)
def test_category_and_importance_names_are_translated(language):
    with translation.override(language):
        names = [
            str(label) for label in [*presentation.CATEGORY_LABELS.values(), *presentation.IMPORTANCE_LABELS.values()]
        ]

    assert names[0] == "SEO"
    assert set(names[1:]).isdisjoint(
        {"Performance", "Security", "Accessibility", "Miscellaneous", "High", "Medium", "Low"}
    )


def test_there_is_one_sentence_here_for_each_pattern_of_the_engines_sentences():
    matched = {
        index
        for sentence in ENGINE_SENTENCES
        for index, (pattern, _) in enumerate(stored_messages._COMPILED)
        if pattern.fullmatch(sentence)
    }

    assert matched == set(range(len(stored_messages.MESSAGES)))


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_engines_sentences_are_translated_keeping_their_variable_parts(language):
    with translation.override(language):
        translated = [stored_messages.translated(sentence) for sentence in ENGINE_SENTENCES]

    assert [sentence for sentence, shown in zip(ENGINE_SENTENCES, translated, strict=True) if shown == sentence] == []
    assert "a.example" in translated[4] and "Connection refused" in translated[4]


def test_a_pages_own_words_are_shown_as_stored():
    with translation.override("fr"):
        assert stored_messages.translated("Acme Garden Tools") == "Acme Garden Tools"
