"""The shortener's own cache (`CACHES["shortener"]`): code → target lookups and seen visitors."""

from django.core.cache import caches
from django.utils.connection import ConnectionProxy

cache = ConnectionProxy(caches, "shortener")
