"""Sentences the analysis stored in English (a failed analysis's error), shown in the reader's language."""

from django import template

from reports.stored_messages import translated

register = template.Library()


@register.filter
def in_reader_language(text: str) -> str:
    return translated(text) if text else text
