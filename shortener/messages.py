"""Every message a client of the shortener can read, in one place (the first ones are Lstu's own)."""

LOGIN_OK = "You have been successfully logged in."
LOGIN_FAILED = "Please, check your credentials: unable to authenticate."
LOGOUT_OK = "You have been successfully logged out."
LOGIN_FIELDS_MISSING = "The login and password fields are required."
LOGIN_REQUIRED = "You need to log in first."
TOO_MANY_LOGINS = "Too many login attempts. Please retry in {seconds} second(s)."

BAD_PASSWORD = "Bad password"
# Pages only (JSON keeps Lstu's messages above).
BAD_PASSWORD_TRIES_LEFT = "Bad password. {tries} more {tries_word} before this address is banned for {ban}."
BAD_PASSWORD_NOW_BANNED = "Bad password. No tries left: this address is banned for {ban}."
ADMIN_MODE_ON = "Admin mode on"
ADMIN_MODE_OFF = "Admin mode off"
TOO_MANY_BAD_PASSWORDS = "Too many bad passwords. You're banned."
ADMIN_PASSWORD_MISSING = "The adminpwd field is required."
ADMIN_UNAVAILABLE = "Admin mode is not available on this server."
NOT_ADMIN = "You're not authenticated as the admin"

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
CODE_EXHAUSTED = "No shortened URL available. Please retry."
LINK_CREATED = "Your short URL: {short}"

LINK_UNKNOWN = "The shortened URL {short} doesn't exist."
LINK_GONE = "The shortened URL {short} no longer exists."
LINK_DELETED = "The shortened URL {short} has been deleted."

PAGE_INVALID = "The page must be a positive integer."
BAD_JSON = "The request body is not a valid JSON object."
FIELD_NOT_TEXT = 'The field "{field}" must be a string.'
FIELD_HAS_NUL = 'The field "{field}" must not contain NUL characters.'
METHOD_NOT_ALLOWED = "Method not allowed."
CSRF_FAILED = "CSRF verification failed. Reload the page and try again."
CROSS_SITE = "Cross-site requests are refused."
