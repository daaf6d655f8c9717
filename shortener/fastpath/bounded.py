"""Insertion-ordered dicts with a size limit, for the fast path's per-process memories."""

from collections import OrderedDict
from collections.abc import Hashable
from contextlib import suppress


def bounded_set[K: Hashable, V](entries: OrderedDict[K, V], key: K, value: V, *, limit: int) -> None:
    """Set `entries[key]`, first dropping the oldest entry if `entries` holds `limit` of them.

    An OrderedDict, because a plain dict's oldest entry is found by walking past every slot
    deleted before it: once full, each new visitor cost the redirect 38 us (and a dict resize up
    to 10 ms) instead of 1.6 us (bench/README.md, "The redirect's own Python").
    No lock: another thread may be changing the dict meanwhile, which at worst drops one entry
    too many or too few; both memories it serves only save work, never decide.
    """
    if len(entries) >= limit:
        with suppress(KeyError):
            entries.popitem(last=False)
    entries[key] = value
