import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()

# Interface C's redirect is answered before Django's handler when it can be: cached short links
# never reach URL resolution nor MIDDLEWARE (see shortener/fastpath/wsgi.py).
from shortener.fastpath.wsgi import with_redirect_shortcut  # noqa: E402 (needs the apps loaded above)

application = with_redirect_shortcut(application)
