"""The fast path's size-limited memories (links seen, visitors seen, hosts validated)."""

from collections import OrderedDict

from shortener.fastpath.bounded import bounded_set
from shortener.fastpath.visits import SeenVisits


def test_a_full_memory_forgets_its_oldest_entries_first():
    entries = OrderedDict()
    for number in range(250):
        bounded_set(entries, number, str(number), limit=100)

    assert list(entries) == list(range(150, 250))
    assert entries[249] == "249"


def test_visitors_seen_past_the_limit_are_forgotten_oldest_first(settings):
    settings.SHORTENER_CACHE_MAX_ENTRIES = 100
    seen = SeenVisits()
    visits = [(link, "visitor", None) for link in range(150)]

    assert all(seen.first_time(visit) for visit in visits)

    assert not any(seen.first_time(visit) for visit in visits[-99:])  # still remembered
    assert seen.first_time(visits[0])  # forgotten: the unique constraint decides again
