"""Thresholds, importance weights and rating bands: defaults here, overrides from settings.

Each setting is a dict (or, from the environment, a JSON object) merged over the
defaults, so a deployment only names what it changes, e.g. `{"max_links": 300}`.
"""

import json

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

# Where each default comes from is said in the docstring of the check that uses it.
DEFAULT_THRESHOLDS: dict[str, float] = {
    # seo
    "min_title_optimal": 10,
    "max_title_optimal": 70,
    "min_description_optimal": 50,
    "max_description_optimal": 320,
    "max_url_length": 115,
    "max_url_params": 2,
    "max_links": 3000,
    "max_missing_keywords": 3,
    # performance
    "load_time_ms": 2000,
    "max_page_bytes": 330_000,
    "max_requests": 50,
    "max_dom_nodes": 1500,
    "min_compression_saving_bytes": 1400,
    "min_minify_saving_bytes": 2048,
    "min_modern_format_bytes": 24_576,
    # miscellaneous
    "min_words": 250,
    "min_text_html_ratio": 5,
    "max_inline_styles": 50,
}

# Points a failed check takes off the score of 100 (see scoring.py for why these).
DEFAULT_IMPORTANCE_WEIGHTS: dict[str, float] = {"high": 25, "medium": 5, "low": 1}

# A score at or above a band's floor earns that rating; below every floor is "bad".
DEFAULT_RATING_BANDS: dict[str, float] = {"good": 80, "decent": 50}


def _merged(setting: str, defaults: dict[str, float]) -> dict[str, float]:
    overrides = getattr(settings, setting, None) or {}
    if isinstance(overrides, str):
        try:
            overrides = json.loads(overrides)
        except ValueError:
            raise ImproperlyConfigured(f"{setting} must be a JSON object, not {overrides!r}.") from None
    if not isinstance(overrides, dict):
        raise ImproperlyConfigured(f"{setting} must be a JSON object, not {overrides!r}.")
    unknown = sorted(set(overrides) - set(defaults))
    if unknown:
        raise ImproperlyConfigured(f"{setting} has unknown keys {unknown}; known keys: {sorted(defaults)}.")
    for key, value in overrides.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ImproperlyConfigured(f"{setting}[{key!r}] must be a non-negative number, not {value!r}.")
    return {**defaults, **overrides}


def thresholds() -> dict[str, float]:
    return _merged("REPORTS_THRESHOLDS", DEFAULT_THRESHOLDS)


def importance_weights() -> dict[str, float]:
    return _merged("REPORTS_IMPORTANCE_WEIGHTS", DEFAULT_IMPORTANCE_WEIGHTS)


def rating_bands() -> dict[str, float]:
    return _merged("REPORTS_RATING_BANDS", DEFAULT_RATING_BANDS)
