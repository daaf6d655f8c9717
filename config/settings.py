"""Settings for the whole service: one module, every deployment difference from the environment.

Every variable is in one table: docs/deployment.md for the site-wide ones, each interface's
README for its own (tests/foundation/test_docs.py keeps it so). With no environment at all,
`DEBUG` is off and `SECRET_KEY` must be given; `DEBUG=1` alone is enough for a development
server on SQLite.
"""

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from accounts.sso_settings import form_targets as sso_form_targets
from accounts.sso_settings import sso_apps
from common.env import (
    env_bool,
    env_database,
    env_float,
    env_int,
    env_list,
    env_secret,
    env_str,
    url_with_query,
)
from config import __version__

BASE_DIR = Path(__file__).resolve().parent.parent

SERVICE_NAME = env_str("SERVICE_NAME", "Webtools")

# --- Core -----------------------------------------------------------------

DEBUG = env_bool("DEBUG", False)

SECRET_KEY = env_secret("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off (or set SECRET_KEY_FILE).")
    SECRET_KEY = "django-insecure-development-only-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

# Trust X-Forwarded-For / X-Forwarded-Proto only behind a proxy you control.
BEHIND_PROXY = env_bool("BEHIND_PROXY", False)
if BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

INSTALLED_APPS = [
    "common.apps.AdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    # For the pg_trgm index of the reports' search (its models check needs the app); harmless on SQLite.
    "django.contrib.postgres",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_tasks_db",
    "common",
    "accounts",
    "allauth",
    "allauth.account",
    "allauth.usersessions",
    "allauth.mfa",
    "django.contrib.humanize",  # allauth.mfa's list of passkeys ("Last used 2 hours ago")
    # Single sign-on by OpenID Connect (accounts/sso.py): installed always, so that its tables exist
    # before OIDC_ISSUER is set; without it, no provider is configured and nothing of it shows.
    "allauth.socialaccount",
    "allauth.socialaccount.providers.openid_connect",
    "reports",
    "pastes",
    "shortener",
]

# Not applied to a plain GET of a short link cached in the serving process: config/wsgi.py answers
# it before Django's handler (shortener/fastpath/wsgi.py), so neither URL resolution nor this list
# runs. What still applies there: host validation (ALLOWED_HOSTS), SecurityMiddleware's HTTPS
# redirect and its security headers. Every other request, short links included, goes through here.
MIDDLEWARE = [
    # First, so that it sees every answer: names each request's route for /metrics and the access log.
    "common.metrics.RouteMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.middleware.ShortenerHostMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After the session, before CommonMiddleware (Django's documented order). Not after authentication:
    # a signed-in person's preference arrives as the language cookie, written at sign-in, so that no
    # request reads it from the database (common/locale.py).
    "common.locale.ReaderLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # "Last seen" of signed-in sessions, without a query for anyone else (accounts/sessions.py).
    "accounts.sessions.SessionActivityMiddleware",
    "accounts.sso.PasswordLoginOffMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",
                "config.context_processors.service",
                "accounts.context_processors.registration",
            ],
        },
    },
]

# --- Database and cache ---------------------------------------------------

DATABASES = {"default": env_database("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_secret("REDIS_URL")  # or REDIS_URL_FILE: the URL may hold a password
# Seconds to wait for Redis before answering without it (common/cache.py: Redis is optional at run time).
REDIS_TIMEOUT = env_float("REDIS_TIMEOUT", 0.5, minimum=0.01)
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "common.cache.DegradingRedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"socket_connect_timeout": REDIS_TIMEOUT, "socket_timeout": REDIS_TIMEOUT},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# The reports API's kept answers (reports/answer_cache.py). A number in the database says which
# are current, so each process's own memory serves as well as Redis, shared less: there 256 bodies
# of at most 256 KiB (a page of 25 reports is about 125 KiB). While Redis is unreachable they are
# made anew.
if REDIS_URL:
    CACHES["reports"] = {
        **CACHES["default"],
        "KEY_PREFIX": "reports-answers",
        "OPTIONS": {**CACHES["default"]["OPTIONS"], "STAND_IN": "none"},
    }
else:
    CACHES["reports"] = {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "reports-answers",
        "OPTIONS": {"MAX_ENTRIES": 256},
    }

# --- Background tasks (the reports' analyses) ------------------------------

# Django's tasks framework. "database" (default) keeps the queue in the database above
# and runs it with `manage.py analysis_worker` (make run starts one); "rq" queues on
# Redis (REDIS_URL) for workers on other machines (`manage.py rqworker default`);
# "immediate" runs each analysis inside the request that asks for it (tests, debugging).
TASK_BACKENDS = {
    "database": "django_tasks_db.DatabaseBackend",
    "rq": "django_tasks_rq.RQBackend",
    "immediate": "django.tasks.backends.immediate.ImmediateBackend",
}
TASKS_BACKEND = env_str("TASKS_BACKEND", "database").lower()
if TASKS_BACKEND not in TASK_BACKENDS:
    raise ImproperlyConfigured(f"TASKS_BACKEND must be one of {', '.join(TASK_BACKENDS)}, not {TASKS_BACKEND!r}.")
TASKS = {"default": {"BACKEND": TASK_BACKENDS[TASKS_BACKEND]}}
if TASKS_BACKEND == "rq":
    if not REDIS_URL:
        raise ImproperlyConfigured("TASKS_BACKEND=rq needs REDIS_URL.")
    INSTALLED_APPS.append("django_rq")
    # DEFAULT_TIMEOUT: RQ kills a job that runs longer; an analysis is bounded far below it.
    # socket_connect_timeout: with a Redis host that never answers (a dead machine, a dropped
    # route) a create's enqueue gives up after REDIS_TIMEOUT, as the cache does, instead of
    # redis-py's 5 s, and the report waits for the sweep (reports/tasks.py). Only connecting is
    # bounded: a worker's dequeue blocks on Redis for minutes by design.
    RQ_QUEUES = {
        "default": {"URL": url_with_query(REDIS_URL, socket_connect_timeout=REDIS_TIMEOUT), "DEFAULT_TIMEOUT": 600}
    }
    # Workers run the jobs as django.tasks tasks (recording their results for the backend).
    RQ = {"JOB_CLASS": "django_tasks_rq.Job"}

# --- Auth, sessions, security ---------------------------------------------

# New hashes are Argon2id (accounts/hashers.py); the others verify hashes stored before, and
# Django re-makes each with the first at its next successful check.
PASSWORD_HASHERS = [
    "accounts.hashers.OWASPArgon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # Not a check: a new password (a reset by mail) lifts the account's sign-in lock.
    {"NAME": "accounts.signin_limits.ForgetFailuresOnNewPassword"},
]

AUTHENTICATION_BACKENDS = [
    # First: while an account or a client address is locked by failed sign-ins, it refuses every
    # password sign-in before any other backend checks the password (accounts/signin_limits.py).
    "accounts.backends.SignInLimitGuard",
    # Sign-in by username (Django's own backend, as /s/login always did) or by email address (allauth's).
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
# Failed password sign-ins (any page, the admin's and /s/login too) per account and per address;
# successes are not counted. At ACCOUNT_FAILURES for one account (or ADDRESS_FAILURES from one
# address) its password sign-in is locked for LOCK_SECONDS, doubling with each further failure up
# to LOCK_MAX_SECONDS; a count is forgotten WINDOW seconds after its last failure or lock.
ACCOUNTS_SIGNIN_ACCOUNT_FAILURES = env_int("ACCOUNTS_SIGNIN_ACCOUNT_FAILURES", 10, minimum=1)
ACCOUNTS_SIGNIN_ADDRESS_FAILURES = env_int("ACCOUNTS_SIGNIN_ADDRESS_FAILURES", 50, minimum=1)
ACCOUNTS_SIGNIN_LOCK_SECONDS = env_int("ACCOUNTS_SIGNIN_LOCK_SECONDS", 60, minimum=1)
ACCOUNTS_SIGNIN_LOCK_MAX_SECONDS = env_int("ACCOUNTS_SIGNIN_LOCK_MAX_SECONDS", 3600, minimum=1)
ACCOUNTS_SIGNIN_WINDOW = env_int("ACCOUNTS_SIGNIN_WINDOW", 900, minimum=1)

# --- LDAP sign-in (accounts/ldap.py) ---------------------------------------
# Lstu's `ldap` settings, meaning what they mean there (docs/deployment.md, "LDAP sign-in"). Every
# sign-in (/s/login, the admin's, and whatever calls django.contrib.auth.authenticate) tries the
# local password first, then the directory; an account is made at the first LDAP sign-in.
# Unset LDAP_URI: nothing of LDAP is imported, so python-ldap and its libraries are not needed.
LDAP_URI = env_str("LDAP_URI")
if LDAP_URI:
    from accounts import ldap as accounts_ldap

    LDAP_USER_TREE = env_str("LDAP_USER_TREE")
    if not LDAP_USER_TREE:
        raise ImproperlyConfigured("LDAP_USER_TREE (the DN under which users are searched) must be set with LDAP_URI.")
    # The AUTH_LDAP_* settings of django-auth-ldap, so that its documentation applies as it is.
    globals().update(
        accounts_ldap.django_settings(
            uri=LDAP_URI,
            user_tree=LDAP_USER_TREE,
            bind_dn=env_str("LDAP_BIND_DN"),
            bind_password=env_secret("LDAP_BIND_PASSWORD"),
            user_attr=env_str("LDAP_USER_ATTR", "uid"),
            user_filter=env_str("LDAP_USER_FILTER"),
            start_tls=env_bool("LDAP_START_TLS", False),
            timeout=env_float("LDAP_TIMEOUT", 5.0, minimum=0.1),
        )
    )
    AUTHENTICATION_BACKENDS.append(accounts_ldap.BACKEND)
# --- end of LDAP sign-in ---------------------------------------------------

# --- Single sign-on (OIDC, accounts/sso.py) -----------------------------------
# One OpenID Connect provider, offered as "Sign in with <OIDC_NAME>" on /accounts/login/; it
# redirects back to /accounts/oidc/sso/login/callback/. ACCOUNTS_PASSWORD_LOGIN=0 leaves that
# button alone: no password is then taken anywhere (local, LDAP, /s/login, the admin).
OIDC_ISSUER = env_str("OIDC_ISSUER").strip().rstrip("/")
OIDC_NAME = env_str("OIDC_NAME", "single sign-on").strip() or "single sign-on"
ACCOUNTS_PASSWORD_LOGIN = env_bool("ACCOUNTS_PASSWORD_LOGIN", True)
SOCIALACCOUNT_ADAPTER = "accounts.sso.SocialAccountAdapter"
SOCIALACCOUNT_PROVIDERS = {
    "openid_connect": {
        "APPS": sso_apps(
            issuer=OIDC_ISSUER,
            name=OIDC_NAME,
            client_id=env_str("OIDC_CLIENT_ID"),
            secret=env_secret("OIDC_CLIENT_SECRET"),
        ),
        # PKCE too: a code intercepted on its way back is useless without this browser's verifier.
        "OAUTH_PKCE_ENABLED": True,
    }
}
# A provider's address that it calls verified (`email_verified`) signs in to the local account that
# has it confirmed too, and is connected to it (accounts/sso.py says why an unconfirmed one is not).
SOCIALACCOUNT_EMAIL_AUTHENTICATION = True
SOCIALACCOUNT_EMAIL_AUTHENTICATION_AUTO_CONNECT = True
if not ACCOUNTS_PASSWORD_LOGIN and not OIDC_ISSUER:
    raise ImproperlyConfigured("ACCOUNTS_PASSWORD_LOGIN=0 needs OIDC_ISSUER: nobody could sign in.")
if not ACCOUNTS_PASSWORD_LOGIN and LDAP_URI:
    raise ImproperlyConfigured("LDAP_URI signs in with a password, which ACCOUNTS_PASSWORD_LOGIN=0 turns off.")
# --- end of single sign-on --------------------------------------------------
# Every page's "Sign in" and every page that needs a signed-in reader go to allauth's form, which
# brings the reader back to `next`; /s/login stays as Lstu's clients use it.
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "landing"

SESSION_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_HTTPONLY = True

# HTTPS=1 turns on everything a deployment behind TLS wants; each can be overridden.
HTTPS = env_bool("HTTPS", False)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", HTTPS)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", HTTPS)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", HTTPS)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000 if HTTPS else 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", HTTPS)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", HTTPS)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Every HTML page is served with this policy; no page loads anything from elsewhere.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "style-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF, *sso_form_targets(OIDC_ISSUER)],  # single sign-on's way to its provider
}

# --- Accounts (allauth, accounts/) ---------------------------------------

# Who may make an account at /accounts/signup/: anyone ("open"), whoever staff invited by email
# ("invite": `manage.py invite EMAIL` or the admin's action), or nobody ("closed"; staff make
# accounts in the admin). `make run` opens it, so that a newcomer can try.
ACCOUNTS_REGISTRATION = env_str("ACCOUNTS_REGISTRATION", "closed").strip().lower()
if ACCOUNTS_REGISTRATION not in ("open", "invite", "closed"):
    raise ImproperlyConfigured(f"ACCOUNTS_REGISTRATION must be open, invite or closed, not {ACCOUNTS_REGISTRATION!r}.")
# Days an invitation link stays valid (it is also refused once an account has its address).
ACCOUNTS_INVITE_MAX_AGE = env_int("ACCOUNTS_INVITE_MAX_AGE", 7, minimum=1)
# "mandatory": an address given at sign-up must be confirmed (the link mailed) before signing in;
# "optional": a confirmation is mailed, signing in does not wait for it; "none": nothing is mailed.
ACCOUNTS_EMAIL_VERIFICATION = env_str("ACCOUNTS_EMAIL_VERIFICATION", "mandatory").strip().lower()
if ACCOUNTS_EMAIL_VERIFICATION not in ("mandatory", "optional", "none"):
    raise ImproperlyConfigured(
        f"ACCOUNTS_EMAIL_VERIFICATION must be mandatory, optional or none, not {ACCOUNTS_EMAIL_VERIFICATION!r}."
    )
ACCOUNT_EMAIL_VERIFICATION = ACCOUNTS_EMAIL_VERIFICATION
# Confirming in the browser that signed up signs in there and goes on to the page sign-up came
# from; a link opened elsewhere leads to the sign-in form (allauth signs in only the session
# that is signing up, so a leaked link signs nobody in).
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
# One address per account, changed by mail: the new one replaces the old once its link is confirmed.
ACCOUNT_CHANGE_EMAIL = True

ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
ACCOUNT_LOGOUT_REDIRECT_URL = "landing"
ACCOUNT_EMAIL_SUBJECT_PREFIX = f"[{SERVICE_NAME}] "
# Whether an address is known is never told: not by sign-up, password reset or email change.
ACCOUNT_PREVENT_ENUMERATION = True
ACCOUNT_RATE_LIMITS = {
    # Off: failed sign-ins are counted in the database for every sign-in path at once, and
    # allauth's per-address "login" limit would count successes too (thirty colleagues behind
    # one address must all get in).
    "login": False,
    "login_failed": False,
}
# /accounts/sessions/ shows when each session was last seen (kept by accounts.sessions's middleware).
USERSESSIONS_TRACK_ACTIVITY = True

# Avatars uploaded at /accounts/profile/: most bytes of the uploaded file (it is then checked as an
# image, re-encoded and shrunk to at most 256 by 256 pixels, so what is kept is far smaller).
ACCOUNTS_AVATAR_MAX_BYTES = env_int("ACCOUNTS_AVATAR_MAX_BYTES", 2 * 1024 * 1024, minimum=1024)

# Two-factor sign-in (allauth.mfa, /accounts/2fa/): a code from an authenticator app (TOTP) with
# recovery codes, and passkeys, which also sign in on their own ("Sign in with a passkey" on
# /accounts/login/). WebAuthn needs a secure origin: https, or http://localhost (fido2 accepts
# it, as browsers do), so MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN stays off everywhere.
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes", "webauthn"]
MFA_PASSKEY_LOGIN_ENABLED = True
MFA_TOTP_ISSUER = SERVICE_NAME
# Wrong codes count as failed sign-ins (allauth's own limit on them is ACCOUNT_RATE_LIMITS' "login_failed", off).
MFA_FORMS = {
    "authenticate": "accounts.two_factor.AuthenticateForm",
    "add_webauthn": "accounts.two_factor.AddWebAuthnForm",
}

# --- Internationalisation, static files -----------------------------------

LANGUAGE_CODE = "en"
# The languages pages are offered in (complete catalogs: locale/ and each app's locale/);
# LANGUAGES=en,fr narrows them. The APIs answer in English whatever is chosen (common/locale.py).
_LANGUAGE_NAMES = {"en": "English", "fr": "Français", "de": "Deutsch", "es": "Español"}
_unknown_languages = set(env_list("LANGUAGES")) - set(_LANGUAGE_NAMES)
if _unknown_languages:
    raise ImproperlyConfigured(f"LANGUAGES names {sorted(_unknown_languages)}; known: {list(_LANGUAGE_NAMES)}")
LANGUAGES = [(code, _LANGUAGE_NAMES[code]) for code in env_list("LANGUAGES", list(_LANGUAGE_NAMES))]
if LANGUAGE_CODE not in dict(LANGUAGES):
    # English is the APIs' language and every page's fallback: narrowing can drop the others only.
    raise ImproperlyConfigured(f"LANGUAGES must keep {LANGUAGE_CODE!r} (the APIs' language and the fallback)")
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Files browsers ask for at the root of the site (/favicon.ico), served by whitenoise as they are.
WHITENOISE_ROOT = BASE_DIR / "webroot"
# Files people upload (avatars), through Django's default storage. Never served from here as they
# are: a view checks and streams each (accounts/avatars.py), so no web server maps MEDIA_URL.
# The image keeps them in its /data volume.
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(BASE_DIR / "media")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# "text" (the default) or "json": one JSON object per line, with the request's id (X-Request-ID) on
# every line logged while serving it, and an access log line per request (common/logs.py).
LOG_FORMAT = env_str("LOG_FORMAT", "text").strip().lower()
if LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured(f"LOG_FORMAT must be text or json, not {LOG_FORMAT!r}.")
# The application's own access log (config/front.py): on with JSON logs, where granian's text one is left off.
ACCESS_LOG = env_bool("ACCESS_LOG", LOG_FORMAT == "json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # A request refused with a 4xx is one line, without the traceback Django logs it with;
    # server errors keep theirs (common/logs.py).
    "filters": {
        "client_errors_in_one_line": {"()": "common.logs.ClientErrorsInOneLine"},
        "request_id": {"()": "common.logs.RequestIdFilter"},
    },
    "formatters": {"json": {"()": "common.logs.JsonFormatter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["client_errors_in_one_line", "request_id"],
            **({"formatter": "json"} if LOG_FORMAT == "json" else {}),
        }
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # The analysis engine's HTTP client logs every request at INFO.
    "loggers": {"httpx": {"level": "WARNING"}, "httpcore": {"level": "WARNING"}},
}

# --- Metrics (common/metrics.py) --------------------------------------------

# GET /metrics answers a bearer of this token (Prometheus' `authorization` setting) and 401 anyone
# else; unset, /metrics is a 404 and nothing is counted. With several processes, set
# PROMETHEUS_MULTIPROC_DIR too: a directory they all write their counts to, emptied at each start.
METRICS_TOKEN = env_secret("METRICS_TOKEN")
PROMETHEUS_MULTIPROC_DIR = env_str("PROMETHEUS_MULTIPROC_DIR")  # read by prometheus-client itself

# --- Django REST framework and the OpenAPI schema -------------------------

REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [
        "common.parsers.StrictJSONParser",
        "rest_framework.parsers.FormParser",
    ],
    # Each interface names its own authentication and permissions on its views.
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Client addresses (throttles, common.http.client_ip): see NUM_PROXIES below.
    "NUM_PROXIES": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": f"{SERVICE_NAME} API",
    "DESCRIPTION": "Interface A (website reports, /api/v1) and interface B (pastes).",
    "VERSION": __version__,
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No deep links: Swagger UI puts each operation's link inside its expand button, a link in a button
    # that screen readers cannot reach (axe-core's nested-interactive, tests/foundation/test_axe_browser.py).
    "SWAGGER_UI_SETTINGS": {"deepLinking": False},
    # PATCH bodies as declared: PATCH /pastes/edit/{id} requires `id` (no "Patched…" copy with nothing required).
    "COMPONENT_SPLIT_PATCH": False,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "pastes.schema.closed_request_bodies",
    ],
}

# --- Serving (config/asgi.py) ---------------------------------------------

# Threads per server process that run the WSGI application (granian's --blocking-threads under WSGI).
WEB_THREADS = env_int("WEB_THREADS", 4, minimum=1)
# A request body that has not arrived this many seconds after its headers is answered 408, and
# held no thread meanwhile (config/front.py).
REQUEST_BODY_TIMEOUT = env_float("REQUEST_BODY_TIMEOUT", 10.0, minimum=0.1)

# --- Client addresses and rate limits (shared) ----------------------------

# Number of proxies in front of the service whose X-Forwarded-For entries are trusted.
NUM_PROXIES = env_int("NUM_PROXIES", 0, minimum=0)
REST_FRAMEWORK["NUM_PROXIES"] = NUM_PROXIES
ALLAUTH_TRUSTED_PROXY_COUNT = NUM_PROXIES  # allauth's sign-up limit

# --- Mail ------------------------------------------------------------------

# One mail configuration for everything: the account area's mails (confirmations, password resets,
# invitations) and the reports' alerts. Read from Django's own names (EMAIL_HOST, …); the MAIL_*
# names this service read before are the fallbacks, so an older deployment's MAIL_HOST still sends.
# With no host at all, mails are printed on the console (make run shows the confirmation link).
# Django 6.1 forbids the EMAIL_* settings beside MAILERS: they only name environment variables here.
_mail_host = env_str("EMAIL_HOST", env_str("MAIL_HOST"))
_mail_backend = env_str(
    "MAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend" if _mail_host else "common.mail.ReadableConsoleEmailBackend",
)
MAILERS = {"default": {"BACKEND": _mail_backend, "OPTIONS": {}}}
if _mail_backend == "django.core.mail.backends.smtp.EmailBackend":
    MAILERS["default"]["OPTIONS"] = {  # the others (console, locmem) take none of these
        "host": _mail_host or "localhost",
        "port": env_int("EMAIL_PORT", env_int("MAIL_PORT", 25, minimum=1), minimum=1),
        "username": env_str("EMAIL_HOST_USER", env_str("MAIL_USERNAME")),
        "password": env_secret("EMAIL_HOST_PASSWORD", env_str("MAIL_PASSWORD")),
        "use_tls": env_bool("EMAIL_USE_TLS", env_bool("MAIL_USE_TLS", False)),
        "timeout": 10,
    }
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", env_str("MAIL_FROM", f"{SERVICE_NAME} <noreply@localhost>"))

# --- Interface A: website reports -----------------------------------------

REPORTS_ALLOW_PRIVATE_NETWORKS = env_bool("REPORTS_ALLOW_PRIVATE_NETWORKS", False)
REPORTS_FETCH_TIMEOUT = env_float("REPORTS_FETCH_TIMEOUT", 10.0, minimum=0.1)
REPORTS_MAX_BODY_BYTES = env_int("REPORTS_MAX_BODY_BYTES", 5 * 1024 * 1024, minimum=1024)
# Request bodies of the API (JSON or forms) larger than this get 413 unread; its largest
# legitimate body, a report with its settings and a password, is a few kilobytes.
REPORTS_MAX_REQUEST_BYTES = env_int("REPORTS_MAX_REQUEST_BYTES", 1024 * 1024, minimum=1024)
REPORTS_MAX_REDIRECTS = env_int("REPORTS_MAX_REDIRECTS", 5, minimum=0)
REPORTS_MAX_SUBREQUESTS = env_int("REPORTS_MAX_SUBREQUESTS", 50, minimum=0)
REPORTS_USER_AGENT = env_str("REPORTS_USER_AGENT", f"Mozilla/5.0 (compatible; {SERVICE_NAME}-Reports/1.0)")
REPORTS_RATE_LIMIT = env_int("REPORTS_RATE_LIMIT", 60, minimum=1)  # API requests per key per period
REPORTS_RATE_PERIOD = env_int("REPORTS_RATE_PERIOD", 60, minimum=1)
# Load the page in headless Chromium (Debian's, via Playwright) and run the DOM checks on the
# rendered document; it has its own time and memory budget (see reports/analysis/rendering.py).
# "auto" (the default) renders when Chromium is installed and otherwise reads the source, which
# the report's `rendering` says; 1 always renders (a failure falls back to the source too), 0 never.
REPORTS_RENDER = "auto" if env_str("REPORTS_RENDER", "auto").strip().lower() == "auto" else env_bool("REPORTS_RENDER")
REPORTS_RENDER_TIMEOUT = env_float("REPORTS_RENDER_TIMEOUT", 20.0, minimum=1.0)
REPORTS_RENDER_MAX_MEMORY_MB = env_int("REPORTS_RENDER_MAX_MEMORY_MB", 512, minimum=64)
# All of one rendering's Chromium processes together (proportional set size): past it the browser is
# killed and the analysis reads the source. The JS heap limit above alone leaves the rest uncapped.
REPORTS_RENDER_MAX_TOTAL_MB = env_int("REPORTS_RENDER_MAX_TOTAL_MB", 640, minimum=128)
REPORTS_CHROMIUM_PATH = env_str("REPORTS_CHROMIUM_PATH", "/usr/bin/chromium")
# How many renderings one process runs at once, half the cores by default (the rest serve requests);
# the others wait their turn (reports/analysis/rendering.py).
REPORTS_RENDER_CONCURRENCY = env_int("REPORTS_RENDER_CONCURRENCY", max(1, (os.cpu_count() or 1) // 2), minimum=1)
# "idle" (the default): renderings, and every Chromium process, run only on CPU time the web server
# and the rest of the worker leave over (Linux's SCHED_IDLE); "normal": they compete like the rest.
REPORTS_RENDER_PRIORITY = env_str("REPORTS_RENDER_PRIORITY", "idle").strip().lower()
if REPORTS_RENDER_PRIORITY not in ("idle", "normal"):
    raise ImproperlyConfigured(f"REPORTS_RENDER_PRIORITY must be idle or normal, not {REPORTS_RENDER_PRIORITY!r}.")
# Analysis tuning, each a JSON object merged over the defaults in reports/analysis/config.py
# (e.g. REPORTS_THRESHOLDS='{"max_links": 300, "load_time_ms": 3000}'); checked at first use.
REPORTS_THRESHOLDS = env_str("REPORTS_THRESHOLDS")
REPORTS_IMPORTANCE_WEIGHTS = env_str("REPORTS_IMPORTANCE_WEIGHTS")  # {"high": 10, "medium": 5, "low": 0}
REPORTS_RATING_BANDS = env_str("REPORTS_RATING_BANDS")  # lowest score for each rating: {"good": 80, "decent": 50}
# POST /api/v1/reports (and PUT with results=1) waits this long for the analysis before it
# answers 202 with a Location to poll; at most REPORTS_ANALYSIS_WAIT_SLOTS requests of each
# server process wait at once, so analyses never hold more than that share of its threads.
# 8 s, measured (issue 50, 2 cores): a small page's rendered create, on the worker's warm browser,
# was done after 5.0 s at the median and 10.6 s at worst on a machine loaded 8-9 (Chromium runs at
# SCHED_IDLE), and a rendering with a cold browser (the first after the worker starts, or after a
# failure) took 4.1-5.0 s on a quiet one. At 5 s about half of those creates answered 202, an
# empty report to a client that reads it from the answer; a slow page now holds one thread 3 s longer.
REPORTS_ANALYSIS_WAIT = env_float("REPORTS_ANALYSIS_WAIT", 8.0, minimum=0)
REPORTS_ANALYSIS_WAIT_SLOTS = env_int("REPORTS_ANALYSIS_WAIT_SLOTS", 1, minimum=0)
# A running analysis renews its lease every third of this; one whose worker died (lease
# passed) is queued again by any worker within about this long.
REPORTS_ANALYSIS_LEASE = env_float("REPORTS_ANALYSIS_LEASE", 30.0, minimum=1)
# Analyses run at once by one `analysis_worker` process (they mostly wait on the network).
REPORTS_WORKER_THREADS = env_int("REPORTS_WORKER_THREADS", 8, minimum=1)
# An analysis worker beside the web server (make run) yields the CPU to requests: see bench/README.md.
REPORTS_WORKER_NICE = env_int("REPORTS_WORKER_NICE", 10, minimum=0)
# Password attempts on one password-protected report page, per client address.
# Webhooks (reports/webhooks.py): each delivery attempt's deadline (connection and answer together), the
# bytes of the answer it reads (status and headers; the body is never read), attempts, and the first
# retry's delay (then doubling).
REPORTS_WEBHOOK_TIMEOUT = env_float("REPORTS_WEBHOOK_TIMEOUT", 5.0, minimum=0.1)
REPORTS_WEBHOOK_MAX_ANSWER_BYTES = env_int("REPORTS_WEBHOOK_MAX_ANSWER_BYTES", 8 * 1024, minimum=1024)
REPORTS_WEBHOOK_MAX_ATTEMPTS = env_int("REPORTS_WEBHOOK_MAX_ATTEMPTS", 5, minimum=1)
REPORTS_WEBHOOK_BACKOFF = env_float("REPORTS_WEBHOOK_BACKOFF", 10.0, minimum=0)
# Site audits (reports/audits/): the most pages one audit may crawl, and how many pages of one host
# are fetched at once across every worker (a polite crawler's usual two).
REPORTS_AUDIT_MAX_PAGES = env_int("REPORTS_AUDIT_MAX_PAGES", 500, minimum=1)
REPORTS_AUDIT_HOST_FETCHES = env_int("REPORTS_AUDIT_HOST_FETCHES", 2, minimum=1)
# What one audit may take in (docs/deployment.md, "Limits"): the sitemap entries its start reads, the
# links of each page it follows, how many times its start is tried before the audit fails, and the
# audits one user may have queued or running at once (POST /api/v1/audits answers 429 beyond).
REPORTS_AUDIT_MAX_SITEMAP_URLS = env_int("REPORTS_AUDIT_MAX_SITEMAP_URLS", 10_000, minimum=1)
REPORTS_AUDIT_MAX_LINKS_PER_PAGE = env_int("REPORTS_AUDIT_MAX_LINKS_PER_PAGE", 5_000, minimum=1)
REPORTS_AUDIT_START_ATTEMPTS = env_int("REPORTS_AUDIT_START_ATTEMPTS", 3, minimum=1)
REPORTS_AUDIT_MAX_QUEUED = env_int("REPORTS_AUDIT_MAX_QUEUED", 5, minimum=1)
REPORTS_PAGE_PASSWORD_ATTEMPTS = env_int("REPORTS_PAGE_PASSWORD_ATTEMPTS", 5, minimum=1)
REPORTS_PAGE_PASSWORD_PERIOD = env_int("REPORTS_PAGE_PASSWORD_PERIOD", 300, minimum=1)

# --- Interface B: pastes --------------------------------------------------

PASTES_PREFIX = env_str("PASTES_PREFIX", "pastes").strip("/")
PASTES_DEFAULT_MAX_CHARS = env_int("PASTES_DEFAULT_MAX_CHARS", 1_000_000, minimum=1)
PASTES_WRITE_RATE_LIMIT = env_int("PASTES_WRITE_RATE_LIMIT", 60, minimum=1)
PASTES_READ_RATE_LIMIT = env_int("PASTES_READ_RATE_LIMIT", 300, minimum=1)
PASTES_RATE_PERIOD = env_int("PASTES_RATE_PERIOD", 60, minimum=1)  # seconds, for both limits above
# Wrong passwords for one paste from one address (pastes.throttling.PastePasswordThrottle).
PASTES_PASSWORD_RATE_LIMIT = env_int("PASTES_PASSWORD_RATE_LIMIT", 10, minimum=1)
PASTES_PASSWORD_RATE_PERIOD = env_int("PASTES_PASSWORD_RATE_PERIOD", 600, minimum=1)
# Passwords checked (hashed) for one address, right or wrong, whatever the paste
# (pastes.throttling.PasswordCheckThrottle): bounds the hashing work each address can ask for.
PASTES_PASSWORD_CHECK_LIMIT = env_int("PASTES_PASSWORD_CHECK_LIMIT", 10, minimum=1)
PASTES_PASSWORD_CHECK_PERIOD = env_int("PASTES_PASSWORD_CHECK_PERIOD", 60, minimum=1)
# Larger bodies get 413 before they are parsed. 16 MiB fits a paste of the default quota
# even when every character is JSON-escaped (up to 12 bytes each for "\ud83d\ude00").
# Comments (discussions) posted from one client address per period (seconds), through the API or the page.
PASTES_COMMENT_RATE_LIMIT = env_int("PASTES_COMMENT_RATE_LIMIT", 10, minimum=1)
PASTES_COMMENT_RATE_PERIOD = env_int("PASTES_COMMENT_RATE_PERIOD", 60, minimum=1)
PASTES_MAX_BODY_BYTES = env_int("PASTES_MAX_BODY_BYTES", 16 * 1024 * 1024, minimum=1024)
# Attachments (pastes/attachments.py): each file at most PASTES_ATTACHMENT_MAX_BYTES (below the body
# limit above, which the multipart form must fit in), and every user's attachments together at most
# their quota (PasteProfile.max_attachment_bytes, whose default this is).
PASTES_ATTACHMENT_MAX_BYTES = env_int("PASTES_ATTACHMENT_MAX_BYTES", 10 * 1024 * 1024, minimum=1)
PASTES_DEFAULT_ATTACHMENT_QUOTA_BYTES = env_int("PASTES_DEFAULT_ATTACHMENT_QUOTA_BYTES", 100 * 1024 * 1024, minimum=0)
# "filesystem" (MEDIA_ROOT/paste-attachments) or "s3": any S3-compatible object storage, through
# django-storages, for deployments where several servers must see the same files.
PASTES_ATTACHMENT_STORAGE = env_str("PASTES_ATTACHMENT_STORAGE", "filesystem").strip().lower()
if PASTES_ATTACHMENT_STORAGE == "filesystem":
    STORAGES["pastes_attachments"] = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": MEDIA_ROOT / "paste-attachments", "base_url": None},
    }
elif PASTES_ATTACHMENT_STORAGE == "s3":
    STORAGES["pastes_attachments"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": env_str("PASTES_S3_BUCKET"),
            "endpoint_url": env_str("PASTES_S3_ENDPOINT_URL") or None,
            "region_name": env_str("PASTES_S3_REGION") or None,
            "access_key": env_secret("PASTES_S3_ACCESS_KEY_ID"),
            "secret_key": env_secret("PASTES_S3_SECRET_ACCESS_KEY"),
            # Objects are private and streamed by the app (pastes/attachments.py): never a public ACL.
            "default_acl": "private",
            "querystring_auth": True,
            "file_overwrite": False,
        },
    }
    if not STORAGES["pastes_attachments"]["OPTIONS"]["bucket_name"]:
        raise ImproperlyConfigured("PASTES_ATTACHMENT_STORAGE=s3 needs PASTES_S3_BUCKET.")
else:
    raise ImproperlyConfigured(
        f"PASTES_ATTACHMENT_STORAGE must be filesystem or s3, not {PASTES_ATTACHMENT_STORAGE!r}."
    )

# --- Interface C: short links ---------------------------------------------

SHORTENER_PREFIX = env_str("SHORTENER_PREFIX", "s").strip("/")
SHORTENER_HOST = env_str("SHORTENER_HOST").lower()
# Hosts that serve the shortener alone, at their root; the first is the default domain of links
# (shortener/domains.py). Without it, SHORTENER_HOST (if set) is the only one.
SHORTENER_DOMAINS = [host.lower() for host in env_list("SHORTENER_DOMAINS")]
for _host in SHORTENER_DOMAINS or ([SHORTENER_HOST] if SHORTENER_HOST else []):
    if _host not in ALLOWED_HOSTS and "*" not in ALLOWED_HOSTS:
        ALLOWED_HOSTS.append(_host)
SHORTENER_ADMINPWD = env_secret("SHORTENER_ADMINPWD")
SHORTENER_HASHED_ADMINPWD = env_secret("SHORTENER_HASHED_ADMINPWD")
# 302 by default so that browsers come back and visits keep being counted.
SHORTENER_REDIRECT_PERMANENT = env_bool("SHORTENER_REDIRECT_PERMANENT", False)
# Fetch a new link's preview (title, description, image) from its target on the task queue (issue 46).
SHORTENER_LINK_PREVIEWS = env_bool("SHORTENER_LINK_PREVIEWS", True)
# Targets whose host matches this regular expression (re.search, case-insensitive) are refused.
SHORTENER_BLOCKED_HOSTS = env_str("SHORTENER_BLOCKED_HOSTS")
if SHORTENER_BLOCKED_HOSTS:
    import re

    try:
        re.compile(SHORTENER_BLOCKED_HOSTS)
    except re.error as exc:
        raise ImproperlyConfigured(f"SHORTENER_BLOCKED_HOSTS is not a valid regular expression: {exc}.") from None
# Moderation (shortener/moderation/): a blocklist of target domains (one a line or hosts-file
# lines, re-read when it changes), how often the links made before are checked against it
# (seconds; 0: never), and reports per client address per period.
SHORTENER_BLOCKLIST_FILE = env_str("SHORTENER_BLOCKLIST_FILE")
SHORTENER_BLOCKLIST_CHECK_SECONDS = env_int("SHORTENER_BLOCKLIST_CHECK_SECONDS", 3600, minimum=0)
SHORTENER_REPORT_RATE_LIMIT = env_int("SHORTENER_REPORT_RATE_LIMIT", 5, minimum=1)
SHORTENER_REPORT_RATE_PERIOD = env_int("SHORTENER_REPORT_RATE_PERIOD", 3600, minimum=1)
SHORTENER_CODE_LENGTH = env_int("SHORTENER_CODE_LENGTH", 8, minimum=6)
# Pixels per QR module of the base64 PNG in JSON answers (Lstu's qrcode_size).
SHORTENER_QRCODE_SCALE = min(env_int("SHORTENER_QRCODE_SCALE", 3, minimum=1), 100)
# An open instance, as a public Lstu: POST /a without logging in. Off: the spec requires a session.
SHORTENER_ALLOW_ANONYMOUS = env_bool("SHORTENER_ALLOW_ANONYMOUS", False)
# Lstu's rapid-shortening ban for anonymous clients: more than BURST shortenings from one address
# within BURST_SECONDS bans it for an hour; asking again while banned renews the ban, and after
# BAN_STRIKES such attempts the ban lasts 30 days.
SHORTENER_ANONYMOUS_BURST = env_int("SHORTENER_ANONYMOUS_BURST", 5, minimum=1)
SHORTENER_ANONYMOUS_BURST_SECONDS = env_int("SHORTENER_ANONYMOUS_BURST_SECONDS", 3, minimum=1)
SHORTENER_ANONYMOUS_BAN_STRIKES = env_int("SHORTENER_ANONYMOUS_BAN_STRIKES", 6, minimum=1)
# POST /import: the largest file and the most lines it may hold, and imports per user per hour.
SHORTENER_IMPORT_MAX_BYTES = env_int("SHORTENER_IMPORT_MAX_BYTES", 5 * 1024 * 1024, minimum=1024)
SHORTENER_IMPORT_MAX_LINES = env_int("SHORTENER_IMPORT_MAX_LINES", 10_000, minimum=1)
SHORTENER_IMPORT_RATE_LIMIT = env_int("SHORTENER_IMPORT_RATE_LIMIT", 10, minimum=1)
# Requests per minute with one personal API token (shr_…), whatever they do.
SHORTENER_TOKEN_RATE_LIMIT = env_int("SHORTENER_TOKEN_RATE_LIMIT", 120, minimum=1)
SHORTENER_CREATE_RATE_LIMIT = env_int("SHORTENER_CREATE_RATE_LIMIT", 30, minimum=1)  # per user per period
SHORTENER_CREATE_RATE_PERIOD = env_int("SHORTENER_CREATE_RATE_PERIOD", 60, minimum=1)
# Password tries on one protected link per client address (shortener.throttling.LinkPasswordThrottle).
# Named for /s/login, which they limited before sign-in failures were counted (ACCOUNTS_SIGNIN_*).
SHORTENER_LOGIN_RATE_LIMIT = env_int("SHORTENER_LOGIN_RATE_LIMIT", 10, minimum=1)
SHORTENER_LOGIN_RATE_PERIOD = env_int("SHORTENER_LOGIN_RATE_PERIOD", 600, minimum=1)
SHORTENER_ADMIN_MAX_BAD_PASSWORDS = env_int("SHORTENER_ADMIN_MAX_BAD_PASSWORDS", 3, minimum=1)
SHORTENER_ADMIN_BAN_SECONDS = env_int("SHORTENER_ADMIN_BAN_SECONDS", 3600, minimum=1)
SHORTENER_ADMIN_SESSION_SECONDS = env_int("SHORTENER_ADMIN_SESSION_SECONDS", 3600, minimum=60)
# Key of the daily visitor hash; SECRET_KEY when unset. Rotating it resets today's de-duplication.
SHORTENER_VISITOR_KEY = env_secret("SHORTENER_VISITOR_KEY")
# The fast path (shortener/fastpath/): lookup copies, visit buffer.
# How long a code → target lookup stays cached. With several processes and no shared cache
# (REDIS_URL), a deleted link may still redirect in other processes for up to this long.
SHORTENER_CACHE_SECONDS = env_int("SHORTENER_CACHE_SECONDS", 300, minimum=0)
# New visits are buffered in each process and written in one batch this often (and at exit);
# a crash loses at most this much. 0 writes each visit during its request instead.
SHORTENER_VISIT_FLUSH_SECONDS = env_float("SHORTENER_VISIT_FLUSH_SECONDS", 0.5, minimum=0)
# Each web process hands its batches to a writer process of its own (shortener/fastpath/visit_writer.py),
# so that building the batch's statements does not hold the GIL its redirects need. 0: its flusher
# thread writes them itself.
SHORTENER_VISIT_WRITER_PROCESS = env_bool("SHORTENER_VISIT_WRITER_PROCESS", True)
# Size of each process's code → link copies and of its memory of visitors seen today.
SHORTENER_CACHE_MAX_ENTRIES = env_int("SHORTENER_CACHE_MAX_ENTRIES", 100_000, minimum=100)
# How many of the most visited links each process loads into its lookup cache when it starts
# (in the background; at most SHORTENER_CACHE_MAX_ENTRIES). 0: look each code up on its first visit.
SHORTENER_CACHE_PRELOAD = env_int("SHORTENER_CACHE_PRELOAD", 50_000, minimum=0)
# Code → link lookups shared between processes, which only Redis can do: each process keeps
# its own copies anyway, and a second per-process copy could not be cleared from elsewhere.
if REDIS_URL:
    # While Redis is unreachable nothing stands in for it here (common/cache.py), for the same reason.
    CACHES["shortener"] = {
        **CACHES["default"],
        "KEY_PREFIX": "shortener",
        "OPTIONS": {**CACHES["default"]["OPTIONS"], "STAND_IN": "none"},
    }
else:
    CACHES["shortener"] = {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}
