"""Insertion-ordered dicts with a size limit, for the fast path's per-process memories."""

from collections.abc import Hashable
from contextlib import suppress


def bounded_set[K: Hashable, V](entries: dict[K, V], key: K, value: V, *, limit: int) -> None:
    """Set `entries[key]`, first dropping the oldest entry if `entries` holds `limit` of them.

    No lock: another thread may be changing the dict meanwhile, which at worst drops one
    entry too many or too few; both memories it serves only save work, never decide.
    """
    if len(entries) >= limit:
        with suppress(RuntimeError, StopIteration, KeyError):
            del entries[next(iter(entries))]
    entries[key] = value
