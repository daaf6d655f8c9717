"""A real OpenLDAP server (Debian's slapd) for the LDAP sign-in tests.

python-ldap's `slapdtest` does the work: it writes a cn=config with the schemas asked for into a
temporary directory, starts slapd on a free port (and on a Unix socket, where ldapadd acts as the
directory's manager) and removes it all when stopped. Here the directory is set up as a real one
is: anonymous clients may only bind, so finding a user needs the bind user; people are
inetOrgPerson entries with passwords, and one of them is filtered out by the settings' filter.
"""

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reports.required import skip_or_fail
from tests.servers import free_port

SLAPD = Path(os.environ.get("SLAPD", "/usr/sbin/slapd"))
SUFFIX = "dc=example,dc=org"
PEOPLE = f"ou=people,{SUFFIX}"
BIND_DN = f"cn=lookup,ou=services,{SUFFIX}"
BIND_PASSWORD = "lookup-secret"
# Lstu's LDAP_USER_FILTER, ANDed with the login's search: people marked as having left cannot sign in.
USER_FILTER = "(!(employeeType=left))"

PEOPLE_LDIF = f"""
dn: {SUFFIX}
objectClass: dcObject
objectClass: organization
dc: example
o: Example

dn: {PEOPLE}
objectClass: organizationalUnit
ou: people

dn: ou=services,{SUFFIX}
objectClass: organizationalUnit
ou: services

dn: {BIND_DN}
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: lookup
userPassword: {BIND_PASSWORD}
"""


def person(uid: str, given_name: str, surname: str, *, password: str, employee_type: str = "staff") -> str:
    return f"""
dn: uid={uid},{PEOPLE}
objectClass: inetOrgPerson
uid: {uid}
cn: {given_name} {surname}
givenName: {given_name}
sn: {surname}
mail: {uid}@example.org
employeeType: {employee_type}
userPassword: {password}
"""


PEOPLE_LDIF += person("ada", "Ada", "Lovelace", password="ada-ldap-password")
PEOPLE_LDIF += person("grace", "Grace", "Hopper", password="grace-ldap-password")
PEOPLE_LDIF += person("edsger", "Edsger", "Dijkstra", password="edsger-ldap-password")  # changed by a test
PEOPLE_LDIF += person("mallory", "Mallory", "Gone", password="mallory-ldap-password", employee_type="left")

# Anonymous clients may bind (to sign in) and nothing else; bound users may read (the rootdn,
# used by ldapadd, passes every rule).
ACCESS = """olcAccess: {0}to attrs=userPassword by anonymous auth by * none
olcAccess: {1}to * by users read by * none
"""


def _slapd_object_class() -> type:
    from slapdtest import SlapdObject  # python-ldap's; only imported once it is known to be installed

    class Directory(SlapdObject):
        suffix = SUFFIX
        openldap_schema_files = ("core.ldif", "cosine.ldif", "inetorgperson.ldif")

        def __init__(self) -> None:
            # slapdtest puts its run directory in the current directory (the checkout) by default.
            self.TMPDIR = tempfile.mkdtemp(prefix="slapd-")
            super().__init__()

        def _avail_tcp_port(self) -> int:
            return free_port()  # within TEST_SERVER_PORTS, as the other servers the tests start

        def gen_config(self) -> str:
            return super().gen_config() + ACCESS

        def stop(self) -> None:
            super().stop()
            shutil.rmtree(self.TMPDIR, ignore_errors=True)

        def modify(self, dn: str, **attributes: str) -> None:
            """Replace attributes of an entry, as the directory's administrators would."""
            changes = "".join(f"replace: {name}\n{name}: {value}\n-\n" for name, value in attributes.items())
            self.ldapmodify(f"dn: {dn}\nchangetype: modify\n{changes}")

    return Directory


def require_python_ldap() -> None:
    try:
        import ldap  # noqa: F401 (python-ldap, which django-auth-ldap needs)
    except ImportError:
        skip_or_fail("python-ldap is missing: pip install -r requirements-ldap.txt", "REQUIRE_LDAP")


def use_directory(
    settings,
    uri: str,
    *,
    bind_dn: str = BIND_DN,
    bind_password: str = BIND_PASSWORD,
    start_tls: bool = False,
    timeout: float = 5.0,
) -> None:
    """Sign-ins (through pytest-django's `settings`) go to the directory at `uri`, as LDAP_URI=uri would."""
    require_python_ldap()
    from accounts import ldap as accounts_ldap

    ldap_settings = accounts_ldap.django_settings(
        uri=uri,
        user_tree=PEOPLE,
        bind_dn=bind_dn,
        bind_password=bind_password,
        user_attr="uid",
        user_filter=USER_FILTER,
        start_tls=start_tls,
        timeout=timeout,
    )
    for name, value in ldap_settings.items():
        setattr(settings, name, value)
    settings.AUTHENTICATION_BACKENDS = [*settings.AUTHENTICATION_BACKENDS, accounts_ldap.BACKEND]


@pytest.fixture(scope="module")
def ldap_server() -> Iterator:
    """A running slapd with the people above, stopped at the end of the module."""
    require_python_ldap()
    if not os.access(SLAPD, os.X_OK):
        skip_or_fail(f"{SLAPD} is missing: apt-get install slapd ldap-utils", "REQUIRE_LDAP")
    server = _slapd_object_class()()
    try:
        server.start()
        server.ldapadd(PEOPLE_LDIF)
        yield server
    finally:
        server.stop()
