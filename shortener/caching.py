"""The shortener's own cache (`CACHES["shortener"]`): code → link lookups shared through Redis.

Without REDIS_URL it is a dummy: each process's own copies (services.links.LocalLinks) are the cache.
"""

from django.core.cache import caches
from django.utils.connection import ConnectionProxy

cache = ConnectionProxy(caches, "shortener")
