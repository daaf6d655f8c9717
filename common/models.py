"""What the interfaces share in the database: the counters of limits that must outlive Redis."""

from django.db import models
from django.db.models import Q


class LimitCounter(models.Model):
    """A limit's count (common/counters.py): password tries, admin password bans, anonymous shortenings,
    and interface A's API limit without Redis.

    In the database, not only in Redis: a ban must hold in every process while Redis is down
    (each process would count on its own) and after Redis restarts without its data.
    """

    key = models.CharField(max_length=200, unique=True)
    count = models.PositiveIntegerField()
    # The count lives until then; a count past it starts again from one.
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        # Made by the shortener (its migration 0008), which used it first; moved here as it is, with its rows.
        db_table = "shortener_limitcounter"
        constraints = [
            models.CheckConstraint(condition=Q(count__gte=1), name="shortener_limitcounter_count_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.key}: {self.count} until {self.expires_at}"
