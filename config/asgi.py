"""What `make run` serves: config.wsgi's application behind an asynchronous body reader.

    granian --interface asgi config.asgi:application --blocking-threads 1 …

Request bodies are read on the event loop, within a size limit and REQUEST_BODY_TIMEOUT,
before a request takes one of the process's WEB_THREADS threads; the application itself,
with the short link shortcut in front of Django's handler, is the same WSGI application
(config/front.py says why; docs/deployment.md, "Request bodies and slow clients", what it
measured). Django's own ASGI handler is not used: it runs every synchronous view on one thread
per process and skips the shortcut.
"""

from django.conf import settings

from config.front import BufferedBodyFront
from config.wsgi import application as wsgi_application
from shortener.fastpath.wsgi import shortcut_answer

# The pool runs the whole WSGI application, shortcut included, for the requests the loop
# declines (with a body, or not a cached redirect): the shortcut's second look is a dict lookup.
application = BufferedBodyFront(wsgi_application, threads=settings.WEB_THREADS, shortcut=shortcut_answer)
