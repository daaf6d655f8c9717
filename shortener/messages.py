"""Every message a client of the shortener can read, in one place (the first ones are Lstu's own).

Each is a `Message`: a real `str` holding the English text, which is what every JSON answer
carries, byte for byte, whatever language the reader asked for (Lstu's clients match these
messages word for word). A page shows the same message in the reader's language: Django's
templates render a value through its `__html__`, which translates it (and its formatted
arguments) when it is rendered, in the language then active. So the JSON answers need no
translation.override and the pages no call of their own; only a message kept for a later page
(a flash message, stored as plain text in the session) is translated first, with `localized()`.
"""

from django.utils.html import escape
from django.utils.safestring import SafeString
from django.utils.translation import gettext


class Message(str):
    """English text that knows the template and arguments it was made from, to be translated on a page."""

    template: str
    arguments: dict[str, object]

    def __new__(cls, template: str, arguments: dict[str, object] | None = None) -> "Message":
        text = super().__new__(cls, template.format(**arguments) if arguments else template)
        text.template = template
        text.arguments = arguments or {}
        return text

    def format(self, *args: object, **kwargs: object) -> "Message":  # type: ignore[override]
        if args:
            raise TypeError("Messages take named arguments only, so that translations may reorder them.")
        return Message(self.template, kwargs)

    def localized(self) -> str:
        """The text in the active language (English where the catalog has no translation)."""
        translated = gettext(self.template)
        if not self.arguments:
            return translated
        return translated.format(**{name: localized(value) for name, value in self.arguments.items()})

    def __html__(self) -> SafeString:
        return escape(self.localized())


def localized(text: object) -> object:
    """`text` in the active language if it is a Message; anything else as it is."""
    return text.localized() if isinstance(text, Message) else text


# `_` so that makemessages (xgettext's default keyword) finds every text below.
_ = Message

LOGIN_OK = _("You have been successfully logged in.")
LOGIN_FAILED = _("Please, check your credentials: unable to authenticate.")
LOGOUT_OK = _("You have been successfully logged out.")
LOGIN_FIELDS_MISSING = _("The login and password fields are required.")
LOGIN_REQUIRED = _("You need to log in first.")
TOO_MANY_LOGINS = _("Too many login attempts. Please retry in {seconds} second(s).")
# JSON clients only (the browser is handed to the second step): a right password is not enough.
LOGIN_NEEDS_SECOND_FACTOR = _(
    "This account uses two-factor authentication, which this client cannot do: "
    "sign in on {url} in a browser, or use an API token."
)
PASSWORD_LOGIN_OFF = _("Passwords are not used on this server: sign in with {provider} at {url}.")

BAD_PASSWORD = _("Bad password")
# A page says more: shortener.services.admin_mode.BadAdminPassword.page_message.
ADMIN_MODE_OFF = _("Admin mode off")
TOO_MANY_BAD_PASSWORDS = _("Too many bad passwords. You're banned.")
ADMIN_PASSWORD_MISSING = _("The adminpwd field is required.")
ADMIN_UNAVAILABLE = _("Admin mode is not available on this server.")
NOT_ADMIN = _("You're not authenticated as the admin")
ADMIN_NEEDS_SESSION = _("Admin mode needs a logged-in session; an API token cannot enter it.")

DOMAIN_MISSING = _("The domain field is required.")
DOMAIN_SAVED = _("The redirects of {domain} are saved.")
DOMAIN_UNKNOWN = _("{domain} is not a short domain of this instance (domains: {domains}).")
URL_MISSING = _("The URL to shorten is missing.")
URL_INVALID = _("{url} is not a valid URL.")
URL_TOO_LONG = _("The URL to shorten is too long: {limit} characters at most.")
HOST_BLOCKED = _(
    "The URL you want to shorten comes from a domain ({host}) that is blacklisted on this server "
    "(usually because of spammers that use this domain)."
)
CUSTOM_INVALID = _('The shortened text must be 1 to {limit} characters among letters, digits, "-" and "_".')
CUSTOM_RESERVED = _("The shortened text can't be {words}. Your URL to shorten: {url}")
CUSTOM_TAKEN = _('The shortened text "{custom}" is already taken. Your URL to shorten: {url}')
TOO_MANY_LINKS = _("You asked to shorten too many URLs too quickly. Please retry in {seconds} second(s).")
ANONYMOUS_BANNED = _("You asked to shorten too many URLs too quickly. You're banned for {hours} hour(s).")
CODE_EXHAUSTED = _("No shortened URL available. Please retry.")
LINK_CREATED = _("Your short URL: {short}")

LINK_UNKNOWN = _("The shortened URL {short} doesn't exist.")
LINK_GONE = _("The shortened URL {short} no longer exists.")
LINK_EXPIRED = _("The shortened URL {short} has expired.")
LINK_USED_UP = _("The shortened URL {short} has reached its maximum number of visits.")
EXPIRES_INVALID = _("The expiry must be a date and time (ISO 8601, UTC unless an offset is given) or a Unix time.")
EXPIRES_IN_PAST = _("The expiry must be in the future.")
EXPIRES_TOO_FAR = _("The expiry must be within 100 years.")
MAX_VISITS_INVALID = _("The maximum number of visits must be a whole number from 1 to {limit}.")
LINK_DELETED = _("The shortened URL {short} has been deleted.")

TOKEN_INVALID = _("The API token is missing, unknown or revoked.")
TOKEN_READ_ONLY = _("This API token is read-only: it may only read (GET, HEAD and OPTIONS requests).")
TOO_MANY_TOKEN_REQUESTS = _("Too many requests with this API token. Please retry in {seconds} second(s).")
TOKEN_REVOKED = _("The API token {hint}… is revoked.")
TOKEN_UNKNOWN = _("There is no such API token.")
TOKEN_NAME_TOO_LONG = _("The token name is too long: {limit} characters at most.")

IMPORT_FILE_MISSING = _('Choose a file to import (field "file").')
IMPORT_TOO_LARGE = _("The file is too large: {limit} bytes at most.")
IMPORT_TOO_MANY_LINES = _("The file has too many lines: {limit} at most.")
IMPORT_NOT_UTF8 = _("The file must be UTF-8 text.")
IMPORT_UNREADABLE = _(
    "Sorry, unable to parse the provided file: expected our JSON export, a CSV with url[,custom] columns, "
    "or Lstu's lstu_export.json."
)
IMPORT_EMPTY = _("The file holds no link.")
IMPORT_NOT_A_LINK = _('This entry is neither a link (an object with a "url") nor a short code.')
IMPORT_CODE_UNKNOWN = _(
    "The short code {code} does not exist on this server (Lstu's export holds codes only, not their URLs)."
)
IMPORT_CODE_GONE = _("The short code {code} no longer exists.")
IMPORT_CODE_TAKEN = _("The short code {code} belongs to another user.")
IMPORT_CLAIM_DUPLICATE = _("The short code {code} leads to a URL you already have a short link for.")
IMPORT_DONE = _("Import: {created} created, {existing} already there, {refused} refused.")
IMPORT_UNKNOWN = _("There is no such import.")
TOO_MANY_IMPORTS = _("Too many imports. Please retry in {seconds} second(s).")

PAGE_INVALID = _("The page must be a positive integer.")
BAD_JSON = _("The request body is not a valid JSON object.")
FIELD_NOT_TEXT = _('The field "{field}" must be a string.')
FIELD_HAS_NUL = _('The field "{field}" must not contain NUL characters.')
METHOD_NOT_ALLOWED = _("Method not allowed.")
CSRF_FAILED = _("CSRF verification failed. Reload the page and try again.")
CROSS_SITE = _("Cross-site requests are refused.")

NOT_YOUR_LINK = _("The shortened URL {short} is not yours.")
LINK_UPDATED = _("The shortened URL {short} has been updated.")
URL_ALREADY_SHORTENED = _("You already have a short link to this URL: {short}.")
NOTHING_TO_UPDATE = _(
    "Give at least one of url, expires_at, max_visits, tags, password, remove_password, rules, forward_query, "
    "forward_path, redirect_status, preview_title, preview_description, preview_image."
)
TAGS_INVALID = _(
    "Tags are at most {count} words of 1 to {limit} characters among letters, digits, "
    '"-", "_" and ".", separated by commas or spaces.'
)
TAG_INVALID = _('The tag must be 1 to {limit} characters among letters, digits, "-", "_" and ".".')
SEARCH_TOO_LONG = _("The search text is too long: {limit} characters at most.")
PASSWORD_TOO_LONG = _("The password is too long: {limit} characters at most.")
LINK_PASSWORD_REQUIRED = _("The shortened URL {short} is protected by a password.")
LINK_PASSWORD_WRONG = _("Wrong password for the shortened URL {short}.")
TOO_MANY_PASSWORD_TRIES = _("Too many password attempts. Please retry in {seconds} second(s).")
DATE_INVALID = _('The dates "from" and "to" must be days as YYYY-MM-DD.')
DATE_RANGE_INVALID = _('The day "from" must not be after "to", and the range at most {days} days long.')
QR_SIZE_INVALID = _("The QR code size must be a whole number of pixels from {low} to {high}.")
PASSWORD_HASH_INVALID = _("The password_hash is not a password hash this server knows.")
PASSWORD_HASH_FOREIGN = _(
    "The password_hash is not one this server would make ({algorithm} with the server's own work factor), "
    "and it cannot be converted without the password: import the link without it and set the password again."
)

# Moderation (shortener/moderation/).
LINK_DISABLED = _("The shortened URL {short} has been disabled by the moderators of this server.")
REPORT_SENT = _("Thank you. The report on {short} has been sent to the moderators.")
REPORT_REASON_MISSING = _('Say why this link should be disabled (field "reason").')
REPORT_REASON_TOO_LONG = _("The reason is too long: {limit} characters at most.")
TOO_MANY_REPORTS = _("Too many reports from this address. Please retry in {seconds} second(s).")
MODERATION_ACTION_INVALID = _('The action must be one of "disable", "enable", "dismiss".')
MODERATION_DISABLED = _("The shortened URL {short} is now disabled.")
MODERATION_ENABLED = _("The shortened URL {short} redirects again.")
MODERATION_DISMISSED = _("The reports on {short} are dismissed.")
HOST_BLOCKLISTED = _("The URL you want to shorten comes from a domain ({host}) that is on this server's blocklist.")

# Imports from other shorteners (shortener/importers/).
IMPORT_CODE_CONFLICT = _("The short code {code} is already taken here: not imported (nothing was overwritten).")
IMPORT_DATE_INVALID = _("The creation date {value!r} is not a date and time, or is in the future.")
IMPORT_VISITS_INVALID = _("The visit count {value!r} is not a whole number from 0 up.")
IMPORT_SQL_UNREADABLE = _("The SQL holds no INSERT into a YOURLS url table that can be read.")
# Redirect rules, forwarding, redirect status and previews (issue 46).
RULES_NOT_JSON = _('The rules must be a JSON array of {"when": {…}, "url": "https://…"} objects.')
RULES_TOO_MANY = _("A link has at most {limit} rules.")
RULE_INVALID = _("Rule {number}: {problem}.")
# The problems RULE_INVALID names (shortener/rules.py).
RULE_NOT_AN_OBJECT = _('each rule must be an object {"when": {…}, "url": "https://…"}')
RULE_URL_NOT_TEXT = _('"url" must be a string')
RULE_WHEN_INVALID = _('"when" must be an object with at least one of {conditions}')
RULE_CONDITION_UNKNOWN = _('unknown condition "{condition}" (known: {conditions})')
RULE_DEVICE_INVALID = _('"device" must be one of {devices}')
RULE_LANGUAGE_INVALID = _('"language" must be a language tag such as "fr" or "fr-CA"')
RULE_COUNTRY_INVALID = _('"country" must be a two-letter ISO 3166 code such as "FR"')
RULE_QUERY_INVALID = _('"query" must be an object of 1 to {limit} names, each a string or null')
RULE_QUERY_NAME_INVALID = _('a "query" name must be 1 to {limit} characters')
RULE_QUERY_VALUE_INVALID = _('the "query" value of "{name}" must be null or a string of at most {limit} characters')
RULE_TIME_INVALID = _('"{key}" must be a date and time in ISO 8601')
RULE_TIMES_REVERSED = _('"after" must be earlier than "before"')
BOOLEAN_INVALID = _('The field "{field}" must be true or false ("1" or "0").')
REDIRECT_STATUS_INVALID = _("The redirect status must be one of {statuses}.")
PREVIEW_FIELD_TOO_LONG = _('The field "{field}" is too long: {limit} characters at most.')
PREVIEW_IMAGE_INVALID = _("The preview image must be an http(s) URL.")
LINK_OPTIONS_DIFFER = _(
    "You already have a short link to this URL ({short}) with other rules or redirect settings: "
    "edit it, or give a custom text to make another."
)
RULES_SAVED = _("The redirect rules of {short} have been saved.")
