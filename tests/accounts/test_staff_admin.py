"""Staff and the people (issue 44, item 6): the user list at any size, disabling at once, badges and quotas.

Disabling ends the user's sessions and revokes every API key of theirs (reports, pastes,
shortener tokens) in the admin's transaction: before, a disabled user's sessions stayed in the
table and their keys came back to life when the account was turned on again.
"""

import json
from html.parser import HTMLParser

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework import status

from pastes.models import ApiKey as PastesKey
from pastes.models import PasteProfile
from reports.models import ApiKey as ReportsKey
from shortener.models import ApiKey as ShortenerKey

pytestmark = pytest.mark.django_db

USERS_URL = "/admin/auth/user/"
User = get_user_model()


class FormFields(HTMLParser):
    """What a browser submits for one form of a page: its inputs, selects and textareas as they stand."""

    def __init__(self, form_id: str) -> None:
        super().__init__()
        self.form_id, self.inside, self.fields = form_id, False, []
        self.select: str | None = None
        self.textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attrs = dict(attrs)
        if tag == "form":
            self.inside = attrs.get("id") == self.form_id
        if not self.inside or ("name" not in attrs and tag != "option"):
            return
        if tag == "input" and attrs.get("type") not in ("submit", "button", "file"):
            if attrs.get("type") not in ("checkbox", "radio"):
                self.fields.append((attrs["name"], attrs.get("value") or ""))
            elif "checked" in attrs:
                self.fields.append((attrs["name"], attrs.get("value", "on")))
        elif tag == "select":
            self.select = attrs["name"]
        elif tag == "option" and self.select and "selected" in attrs:
            self.fields.append((self.select, attrs.get("value", "")))
        elif tag == "textarea":
            self.textarea = attrs["name"]
            self.fields.append((self.textarea, ""))

    def handle_data(self, data: str) -> None:
        if self.textarea:
            name, value = self.fields.pop()
            self.fields.append((name, value + data))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self.select = None
        elif tag == "textarea":
            self.textarea = None


def submitted(page, form_id: str, **changes: str | None) -> dict:
    """The form's fields as shown, with `changes` (None: a checkbox unticked)."""
    parser = FormFields(form_id)
    parser.feed(page.content.decode())
    data: dict[str, list[str]] = {}
    for name, value in parser.fields:
        data.setdefault(name, []).append(value.removeprefix("\n"))
    for name, value in changes.items():
        data.pop(name, None)
        if value is not None:
            data[name] = [value]
    return data


def form_errors(response) -> list:
    """The admin form's and its inlines' errors, for a failed assertion's message."""
    context = response.context
    return [context["adminform"].form.errors, *(inline.formset.errors for inline in context["inline_admin_formsets"])]


@pytest.fixture
def alice_signed_in(user) -> Client:
    """Alice signed in through /s/login, as a person would be (a real session row)."""
    client = Client()
    response = client.post("/s/login", {"login": "alice", "password": "alice-password", "_format": "json"})
    assert response.json()["success"] is True
    return client


@pytest.fixture
def alice_keys(user) -> dict[str, str]:
    return {
        "reports": ReportsKey.issue(user=user)[1],
        "pastes": PastesKey.issue(user=user)[1],
        "shortener": ShortenerKey.issue(user=user)[1],
    }


def key_statuses(keys: dict[str, str]) -> dict[str, int]:
    """What each interface answers a request made with each key."""
    return {
        "reports": Client().get("/api/v1/reports", HTTP_AUTHORIZATION=f"Bearer {keys['reports']}").status_code,
        "pastes": Client()
        .post(
            "/pastes/create",
            {"name": "ab", "content": "x"},
            content_type="application/json",
            HTTP_AUTHORIZATION=keys["pastes"],
        )
        .status_code,
        "shortener": Client()
        .get("/s/stats", {"_format": "json"}, HTTP_AUTHORIZATION=f"Bearer {keys['shortener']}")
        .status_code,
    }


def signed_in_as(client: Client) -> str | None:
    return client.get("/s/login", {"_format": "json"}).json()["user"]


def sessions_of(user) -> list[str]:
    sessions = Session.objects.all()
    return [session.session_key for session in sessions if session.get_decoded().get("_auth_user_id") == str(user.pk)]


# --- disabling -----------------------------------------------------------------


def test_disabling_with_the_action_signs_the_user_out_and_revokes_every_key(
    admin_client, user, other_user, alice_signed_in, alice_keys
):
    bob = Client()
    bob.force_login(other_user)
    assert signed_in_as(alice_signed_in) == "alice"
    assert key_statuses(alice_keys) == {"reports": 200, "pastes": 200, "shortener": 200}

    response = admin_client.post(USERS_URL, {"action": "disable_selected", "_selected_action": [user.pk]}, follow=True)

    assert "Disabled 1 user." in response.content.decode()
    assert signed_in_as(alice_signed_in) is None  # her next request is anonymous
    assert sessions_of(user) == []
    assert signed_in_as(bob) == "bob"  # nobody else's
    # Revoked, not only refused while disabled: turning the account on again does not bring them back.
    User.objects.filter(pk=user.pk).update(is_active=True)
    assert key_statuses(alice_keys) == {"reports": 401, "pastes": 401, "shortener": 401}
    assert all(model.objects.get(user=user).revoked_at is not None for model in (ReportsKey, PastesKey, ShortenerKey))


def test_disabling_ends_even_a_session_whose_backend_would_still_accept_the_user(admin_client, user, settings):
    # LDAP's backend, like this one, does not look at is_active when a session comes back.
    allow_all = "django.contrib.auth.backends.AllowAllUsersModelBackend"
    settings.AUTHENTICATION_BACKENDS = [*settings.AUTHENTICATION_BACKENDS, allow_all]
    alice = Client()
    alice.force_login(user, backend=allow_all)

    admin_client.post(USERS_URL, {"action": "disable_selected", "_selected_action": [user.pk]})

    assert signed_in_as(alice) is None
    assert sessions_of(user) == []


def test_unticking_active_in_the_change_form_signs_the_user_out_and_revokes_every_key(
    admin_client, user, alice_signed_in, alice_keys
):
    page = admin_client.get(f"{USERS_URL}{user.pk}/change/")

    response = admin_client.post(f"{USERS_URL}{user.pk}/change/", submitted(page, "user_form", is_active=None))

    assert response.status_code == status.HTTP_302_FOUND, form_errors(response)
    assert User.objects.get(pk=user.pk).is_active is False
    assert signed_in_as(alice_signed_in) is None
    assert sessions_of(user) == []
    User.objects.filter(pk=user.pk).update(is_active=True)
    assert key_statuses(alice_keys) == {"reports": 401, "pastes": 401, "shortener": 401}


def test_other_changes_in_the_form_leave_sessions_and_keys_alone(admin_client, user, alice_signed_in, alice_keys):
    page = admin_client.get(f"{USERS_URL}{user.pk}/change/")

    admin_client.post(f"{USERS_URL}{user.pk}/change/", submitted(page, "user_form", first_name="Alice"))

    assert User.objects.get(pk=user.pk).first_name == "Alice"
    assert signed_in_as(alice_signed_in) == "alice"
    assert key_statuses(alice_keys) == {"reports": 200, "pastes": 200, "shortener": 200}


# --- badges and quota -------------------------------------------------------


def test_staff_set_badges_and_the_paste_quota_on_the_users_page(admin_client, user):
    page = admin_client.get(f"{USERS_URL}{user.pk}/change/")
    assert 'name="paste_profile-0-badges"' in page.content.decode()

    response = admin_client.post(
        f"{USERS_URL}{user.pk}/change/",
        submitted(
            page,
            "user_form",
            **{"paste_profile-0-badges": '["staff", "early"]', "paste_profile-0-max_paste_chars": "5000"},
        ),
    )

    assert response.status_code == status.HTTP_302_FOUND, form_errors(response)
    profile = PasteProfile.objects.get(user=user)
    assert (profile.badges, profile.max_paste_chars) == (["staff", "early"], 5000)
    account = Client().get("/pastes/accounts/@alice").json()
    assert account["badges"] == ["staff", "early"]


# --- who may see it -----------------------------------------------------------


@pytest.mark.parametrize("url", [USERS_URL, "{own}"])
def test_the_user_admin_is_for_staff_with_the_permission_only(user, url):
    url = url.format(own=f"{USERS_URL}{user.pk}/change/")
    owner = Client()
    owner.force_login(user)
    staff_without_permission = Client()
    staff_without_permission.force_login(User.objects.create_user("clerk", password="x", is_staff=True))

    anonymous = Client().get(url)
    own = owner.get(url)
    clerk = staff_without_permission.get(url)

    assert (anonymous.status_code, anonymous["Location"].split("?")[0]) == (302, "/admin/login/")
    assert (own.status_code, own["Location"].split("?")[0]) == (302, "/admin/login/")
    assert clerk.status_code == status.HTTP_403_FORBIDDEN


def test_a_non_staff_user_cannot_disable_anyone(user, other_user):
    owner = Client()
    owner.force_login(user)

    response = owner.post(USERS_URL, {"action": "disable_selected", "_selected_action": [other_user.pk]})

    assert response.status_code == status.HTTP_302_FOUND
    assert User.objects.get(pk=other_user.pk).is_active is True


# --- at many users --------------------------------------------------------------

MANY = 1_200


@pytest.fixture
def many_users(db):
    User.objects.bulk_create(
        User(username=f"person{n:05}", email=f"person{n}@example.org", password="!", is_active=n % 7 != 0)
        for n in range(MANY)
    )
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE auth_user")


def unbounded_user_counts(queries) -> list[str]:
    return [
        query["sql"]
        for query in queries.captured_queries
        if "COUNT(" in query["sql"].upper() and "auth_user" in query["sql"] and "LIMIT" not in query["sql"].upper()
    ]


@pytest.mark.parametrize(
    "params", [{}, {"q": "person0012"}, {"is_active__exact": "0"}, {"is_staff__exact": "0", "p": "3"}]
)
def test_the_user_list_at_many_users_never_counts_the_whole_table(admin_client, many_users, params):
    with CaptureQueriesContext(connection) as queries:
        response = admin_client.get(USERS_URL, params)

    assert response.status_code == status.HTTP_200_OK
    changelist = response.context["cl"]
    assert changelist.full_result_count is None  # show_full_result_count = False: no second count
    assert len(changelist.result_list) == min(changelist.list_per_page, changelist.result_count)
    if connection.vendor == "postgresql":
        # Counts stop at a bound (a LIMIT), past it the planner's estimate: never the whole table.
        assert unbounded_user_counts(queries) == []
    else:
        # SQLite, sized for 10⁵ rows, counts exactly past the bound (common/paging.py).
        assert changelist.result_count == changelist.queryset.count()
    if "q" in params:
        assert [person.username for person in changelist.result_list] == [f"person{n:05}" for n in range(120, 130)]


# --- at 10⁵ users, on PostgreSQL: the plans ------------------------------------------

HUNDRED_THOUSAND = 100_000


@pytest.fixture
def hundred_thousand_users(db):
    """10⁵ people: one in a thousand staff, one in 5,000 superuser, one in seven disabled; then ANALYZE."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name, email, is_staff,"
            " is_active, date_joined)"
            " SELECT '!', n %% 5000 = 0, 'person' || lpad(n::text, 6, '0'), '', '', 'person' || n || '@example.org',"
            " n %% 1000 = 0, n %% 7 <> 0, now() FROM generate_series(1, %s) AS n",
            [HUNDRED_THOUSAND],
        )
        # As autovacuum does after a day of sign-ups: the new rows' trigrams move from the GIN indexes'
        # pending lists (which every search reads whole, so the planner would rather scan the table)
        # into the indexes themselves.
        for index in ("accounts_user_username_trgm", "accounts_user_email_trgm"):
            cursor.execute("SELECT gin_clean_pending_list(%s::regclass)", [index])
        cursor.execute("ANALYZE auth_user")


def plan_nodes(plan: dict) -> list[dict]:
    return [plan, *(node for child in plan.get("Plans", []) for node in plan_nodes(child))]


def user_list_plans(queries) -> dict[str, list[dict]]:
    """Each of the page's statements that read auth_user, with the nodes of its plan as PostgreSQL ran it.

    Replayed in order, with the settings the page made for its next statements (common.paging's
    page_rows turns bitmap scans off for a list whose total is an estimate).
    """
    plans = {}
    with transaction.atomic(), connection.cursor() as cursor:
        for query in queries.captured_queries:
            sql = query["sql"]
            if sql.startswith("SET LOCAL enable_bitmapscan"):
                cursor.execute(sql)
            elif sql.startswith("SELECT") and '"auth_user"' in sql:
                cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}")
                plan = cursor.fetchone()[0]
                plan = json.loads(plan) if isinstance(plan, str) else plan
                plans[sql] = plan_nodes(plan[0]["Plan"])
        transaction.set_rollback(True)
    return plans


def rows_scanned(nodes: list[dict]) -> int:
    """The rows of auth_user that sequential scans read: those they kept and those their filter removed.

    A scan under a LIMIT stops early (the planner may prefer it for a count capped at 101 of a
    term one user in a hundred matches: some 10,000 rows); a count of the table would read them all.
    """
    return sum(
        node["Actual Rows"] * node["Actual Loops"] + node.get("Rows Removed by Filter", 0)
        for node in nodes
        if node["Node Type"] == "Seq Scan" and node.get("Relation Name") == "auth_user"
    )


def indexes_used(plans: dict[str, list[dict]]) -> set[str]:
    return {node["Index Name"] for nodes in plans.values() for node in nodes if "Index Name" in node}


TRIGRAMS = {"accounts_user_username_trgm", "accounts_user_email_trgm"}
# (the list's parameters, the users it shows in order, the indexes its statements must read)
LISTS = [
    ({}, lambda users: users.order_by("username"), {"auth_user_username_key"}),
    ({"p": "40"}, lambda users: users.order_by("username")[39 * 50 :], {"auth_user_username_key"}),
    ({"q": "person01234"}, lambda users: users.filter(username__startswith="person01234"), TRIGRAMS),
    ({"q": "34@EXAMPLE"}, lambda users: users.filter(email__icontains="34@example"), TRIGRAMS),
    # Every user matches: walking the usernames in order meets a page's worth at once.
    ({"q": "example"}, lambda users: users.filter(email__icontains="example"), {"auth_user_username_key"}),
    ({"is_staff__exact": "1"}, lambda users: users.filter(is_staff=True), {"accounts_user_staff_username"}),
    ({"is_superuser__exact": "1"}, lambda users: users.filter(is_superuser=True), {"accounts_user_superuser_username"}),
    ({"is_active__exact": "0"}, lambda users: users.filter(is_active=False), {"accounts_user_inactive_username"}),
    (
        {"q": "person0999", "is_active__exact": "1"},
        lambda users: users.filter(username__startswith="person0999", is_active=True),
        TRIGRAMS,
    ),
]


@pytest.mark.postgres
def test_at_a_hundred_thousand_users_every_list_reads_indexes_and_counts_no_table(admin_client, hundred_thousand_users):
    # One test over every list: the 10⁵ users are made once.
    for params, expected, indexes in LISTS:
        # In a savepoint undone after it: what the page SETs LOCAL ends with it, as with its own transaction.
        with transaction.atomic(), CaptureQueriesContext(connection) as queries:
            response = admin_client.get(USERS_URL, params)
            transaction.set_rollback(True)

        assert response.status_code == status.HTTP_200_OK, params
        changelist = response.context["cl"]
        shown = [person.username for person in changelist.result_list]
        assert shown == [person.username for person in expected(User.objects.order_by("username"))[:50]], params
        assert changelist.full_result_count is None, params
        assert unbounded_user_counts(queries) == [], params
        plans = user_list_plans(queries)
        scanned = {sql: rows for sql, nodes in plans.items() if (rows := rows_scanned(nodes)) > HUNDRED_THOUSAND // 4}
        assert scanned == {}, params
        assert indexes <= indexes_used(plans), params


def test_the_user_list_indexes_exist_on_postgresql_only(db):
    names = {
        "accounts_user_username_trgm",
        "accounts_user_email_trgm",
        "accounts_user_staff_username",
        "accounts_user_superuser_username",
        "accounts_user_inactive_username",
    }
    with connection.cursor() as cursor:
        indexes = set(connection.introspection.get_constraints(cursor, "auth_user"))

    assert (names <= indexes) == (connection.vendor == "postgresql")
    assert names & indexes in (set(), names)
