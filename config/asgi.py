"""ASGI is not supported: serve `config.wsgi:application` (docs/deployment.md, "Serving").

Interface C's redirect relies on a shortcut in front of Django's WSGI handler
(shortener/fastpath/wsgi.py), and nothing in the project is asynchronous: under ASGI every
request would pay Django's sync-to-async hand-off and every short link the whole middleware
stack, far below the measured figures. Failing here beats a deployment that is quietly slow.
"""

from django.core.exceptions import ImproperlyConfigured

raise ImproperlyConfigured("ASGI is not supported; serve config.wsgi:application (see docs/deployment.md, 'Serving').")
