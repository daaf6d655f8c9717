"""Every message a client of the shortener can read, in one place (the first ones are Lstu's own)."""

LOGIN_OK = "You have been successfully logged in."
LOGIN_FAILED = "Please, check your credentials: unable to authenticate."
LOGOUT_OK = "You have been successfully logged out."
LOGIN_FIELDS_MISSING = "The login and password fields are required."
LOGIN_REQUIRED = "You need to log in first."
TOO_MANY_LOGINS = "Too many login attempts. Please retry in {seconds} second(s)."
# JSON clients only (the browser is handed to the second step): a right password is not enough.
LOGIN_NEEDS_SECOND_FACTOR = (
    "This account uses two-factor authentication, which this client cannot do: "
    "sign in on {url} in a browser, or use an API token."
)
PASSWORD_LOGIN_OFF = "Passwords are not used on this server: sign in with {provider} at {url}."

BAD_PASSWORD = "Bad password"
# Pages only (JSON keeps Lstu's messages above).
BAD_PASSWORD_TRIES_LEFT = "Bad password. {tries} more {tries_word} before this address is banned for {ban}."
BAD_PASSWORD_NOW_BANNED = "Bad password. No tries left: this address is banned for {ban}."
ADMIN_MODE_OFF = "Admin mode off"
TOO_MANY_BAD_PASSWORDS = "Too many bad passwords. You're banned."
ADMIN_PASSWORD_MISSING = "The adminpwd field is required."
ADMIN_UNAVAILABLE = "Admin mode is not available on this server."
NOT_ADMIN = "You're not authenticated as the admin"
ADMIN_NEEDS_SESSION = "Admin mode needs a logged-in session; an API token cannot enter it."

DOMAIN_MISSING = "The domain field is required."
DOMAIN_SAVED = "The redirects of {domain} are saved."
DOMAIN_UNKNOWN = "{domain} is not a short domain of this instance (domains: {domains})."
URL_MISSING = "The URL to shorten is missing."
URL_INVALID = "{url} is not a valid URL."
URL_TOO_LONG = "The URL to shorten is too long: {limit} characters at most."
HOST_BLOCKED = (
    "The URL you want to shorten comes from a domain ({host}) that is blacklisted on this server "
    "(usually because of spammers that use this domain)."
)
CUSTOM_INVALID = 'The shortened text must be 1 to {limit} characters among letters, digits, "-" and "_".'
CUSTOM_RESERVED = "The shortened text can't be {words}. Your URL to shorten: {url}"
CUSTOM_TAKEN = 'The shortened text "{custom}" is already taken. Your URL to shorten: {url}'
TOO_MANY_LINKS = "You asked to shorten too many URLs too quickly. Please retry in {seconds} second(s)."
ANONYMOUS_BANNED = "You asked to shorten too many URLs too quickly. You're banned for {hours} hour(s)."
CODE_EXHAUSTED = "No shortened URL available. Please retry."
LINK_CREATED = "Your short URL: {short}"

LINK_UNKNOWN = "The shortened URL {short} doesn't exist."
LINK_GONE = "The shortened URL {short} no longer exists."
LINK_EXPIRED = "The shortened URL {short} has expired."
LINK_USED_UP = "The shortened URL {short} has reached its maximum number of visits."
EXPIRES_INVALID = "The expiry must be a date and time (ISO 8601, UTC unless an offset is given) or a Unix time."
EXPIRES_IN_PAST = "The expiry must be in the future."
EXPIRES_TOO_FAR = "The expiry must be within 100 years."
MAX_VISITS_INVALID = "The maximum number of visits must be a whole number from 1 to {limit}."
LINK_DELETED = "The shortened URL {short} has been deleted."

TOKEN_INVALID = "The API token is missing, unknown or revoked."
TOKEN_READ_ONLY = "This API token is read-only: it may only read (GET, HEAD and OPTIONS requests)."
TOO_MANY_TOKEN_REQUESTS = "Too many requests with this API token. Please retry in {seconds} second(s)."
TOKEN_REVOKED = "The API token {hint}… is revoked."
TOKEN_UNKNOWN = "There is no such API token."
TOKEN_NAME_TOO_LONG = "The token name is too long: {limit} characters at most."

IMPORT_FILE_MISSING = 'Choose a file to import (field "file").'
IMPORT_TOO_LARGE = "The file is too large: {limit} bytes at most."
IMPORT_TOO_MANY_LINES = "The file has too many lines: {limit} at most."
IMPORT_NOT_UTF8 = "The file must be UTF-8 text."
IMPORT_UNREADABLE = (
    "Sorry, unable to parse the provided file: expected our JSON export, a CSV with url[,custom] columns, "
    "or Lstu's lstu_export.json."
)
IMPORT_EMPTY = "The file holds no link."
IMPORT_NOT_A_LINK = 'This entry is neither a link (an object with a "url") nor a short code.'
IMPORT_CODE_UNKNOWN = (
    "The short code {code} does not exist on this server (Lstu's export holds codes only, not their URLs)."
)
IMPORT_CODE_GONE = "The short code {code} no longer exists."
IMPORT_CODE_TAKEN = "The short code {code} belongs to another user."
IMPORT_CLAIM_DUPLICATE = "The short code {code} leads to a URL you already have a short link for."
IMPORT_DONE = "Import: {created} created, {existing} already there, {refused} refused."
IMPORT_UNKNOWN = "There is no such import."
TOO_MANY_IMPORTS = "Too many imports. Please retry in {seconds} second(s)."

PAGE_INVALID = "The page must be a positive integer."
BAD_JSON = "The request body is not a valid JSON object."
FIELD_NOT_TEXT = 'The field "{field}" must be a string.'
FIELD_HAS_NUL = 'The field "{field}" must not contain NUL characters.'
METHOD_NOT_ALLOWED = "Method not allowed."
CSRF_FAILED = "CSRF verification failed. Reload the page and try again."
CROSS_SITE = "Cross-site requests are refused."

NOT_YOUR_LINK = "The shortened URL {short} is not yours."
LINK_UPDATED = "The shortened URL {short} has been updated."
URL_ALREADY_SHORTENED = "You already have a short link to this URL: {short}."
NOTHING_TO_UPDATE = (
    "Give at least one of url, expires_at, max_visits, tags, password, remove_password, rules, forward_query, "
    "forward_path, redirect_status, preview_title, preview_description, preview_image."
)
TAGS_INVALID = (
    "Tags are at most {count} words of 1 to {limit} characters among letters, digits, "
    '"-", "_" and ".", separated by commas or spaces.'
)
TAG_INVALID = 'The tag must be 1 to {limit} characters among letters, digits, "-", "_" and ".".'
SEARCH_TOO_LONG = "The search text is too long: {limit} characters at most."
PASSWORD_TOO_LONG = "The password is too long: {limit} characters at most."
LINK_PASSWORD_REQUIRED = "The shortened URL {short} is protected by a password."
LINK_PASSWORD_WRONG = "Wrong password for the shortened URL {short}."
TOO_MANY_PASSWORD_TRIES = "Too many password attempts. Please retry in {seconds} second(s)."
DATE_INVALID = 'The dates "from" and "to" must be days as YYYY-MM-DD.'
DATE_RANGE_INVALID = 'The day "from" must not be after "to", and the range at most {days} days long.'
QR_SIZE_INVALID = "The QR code size must be a whole number of pixels from {low} to {high}."
PASSWORD_HASH_INVALID = "The password_hash is not a password hash this server knows."
PASSWORD_HASH_FOREIGN = (
    "The password_hash is not one this server would make ({algorithm} with the server's own work factor), "
    "and it cannot be converted without the password: import the link without it and set the password again."
)

# Moderation (shortener/moderation/).
LINK_DISABLED = "The shortened URL {short} has been disabled by the moderators of this server."
REPORT_SENT = "Thank you. The report on {short} has been sent to the moderators."
REPORT_REASON_MISSING = 'Say why this link should be disabled (field "reason").'
REPORT_REASON_TOO_LONG = "The reason is too long: {limit} characters at most."
TOO_MANY_REPORTS = "Too many reports from this address. Please retry in {seconds} second(s)."
MODERATION_ACTION_INVALID = 'The action must be one of "disable", "enable", "dismiss".'
MODERATION_DISABLED = "The shortened URL {short} is now disabled."
MODERATION_ENABLED = "The shortened URL {short} redirects again."
MODERATION_DISMISSED = "The reports on {short} are dismissed."
HOST_BLOCKLISTED = "The URL you want to shorten comes from a domain ({host}) that is on this server's blocklist."

# Imports from other shorteners (shortener/importers/).
IMPORT_CODE_CONFLICT = "The short code {code} is already taken here: not imported (nothing was overwritten)."
IMPORT_DATE_INVALID = "The creation date {value!r} is not a date and time, or is in the future."
IMPORT_VISITS_INVALID = "The visit count {value!r} is not a whole number from 0 up."
IMPORT_SQL_UNREADABLE = "The SQL holds no INSERT into a YOURLS url table that can be read."
# Redirect rules, forwarding, redirect status and previews (issue 46).
RULES_NOT_JSON = 'The rules must be a JSON array of {"when": {…}, "url": "https://…"} objects.'
RULES_TOO_MANY = "A link has at most {limit} rules."
RULE_INVALID = "Rule {number}: {problem}."
BOOLEAN_INVALID = 'The field "{field}" must be true or false ("1" or "0").'
REDIRECT_STATUS_INVALID = "The redirect status must be one of {statuses}."
PREVIEW_FIELD_TOO_LONG = 'The field "{field}" is too long: {limit} characters at most.'
PREVIEW_IMAGE_INVALID = "The preview image must be an http(s) URL."
LINK_OPTIONS_DIFFER = (
    "You already have a short link to this URL ({short}) with other rules or redirect settings: "
    "edit it, or give a custom text to make another."
)
RULES_SAVED = "The redirect rules of {short} have been saved."
