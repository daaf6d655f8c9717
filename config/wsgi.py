import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()

# Interface C's redirect is answered before Django's handler when it can be: cached short links
# never reach URL resolution nor MIDDLEWARE (see shortener/fastpath/wsgi.py).
from shortener.fastpath.wsgi import with_redirect_shortcut  # noqa: E402 (needs the apps loaded above)

application = with_redirect_shortcut(application)

# What is loaded by now (Django, the apps, their modules) lives as long as the process. Frozen,
# the collector's full collections skip it: unfrozen, each one walked ~110,000 objects and held
# the GIL for 30 ms on an idle machine and 90-150 ms under load, stalling every request thread of
# the worker at once (bench/README.md, "What the tails were").
gc.freeze()
