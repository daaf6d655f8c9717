from reports.analysis.checks import security

from .helpers import make_context, page


def test_https_passes_for_an_https_page():
    assert security.https_encryption(make_context(url="https://shop.example/")).passed


def test_https_fails_for_a_plain_http_page():
    outcome = security.https_encryption(make_context(url="http://shop.example/"))

    assert outcome.errors == {"not_https": "http://shop.example/"}


def test_mixed_content_passes_when_every_resource_is_https():
    body = '<img src="/a.webp" alt=""><script src="https://cdn.example/x.js"></script>'

    assert security.mixed_content(make_context(page("", body))).passed


def test_mixed_content_fails_listing_http_resources_on_an_https_page():
    body = '<img src="http://cdn.example/a.webp" alt=""><iframe src="http://ads.example/"></iframe>'

    outcome = security.mixed_content(make_context(page("", body)))

    assert outcome.errors == {"insecure_resources": ["http://cdn.example/a.webp", "http://ads.example/"]}


def test_server_signature_passes_when_the_server_header_has_no_version():
    assert security.server_signature(make_context(headers={"server": "nginx"})).passed


def test_server_signature_fails_when_the_server_header_names_a_version():
    outcome = security.server_signature(make_context(headers={"server": "Apache/2.4.1 (Unix)"}))

    assert outcome.errors == {"revealed": {"server": "Apache/2.4.1 (Unix)"}}


def test_server_signature_fails_with_an_x_powered_by_header():
    outcome = security.server_signature(make_context(headers={"x-powered-by": "Express"}))

    assert outcome.errors == {"revealed": {"x-powered-by": "Express"}}


def test_cross_origin_links_pass_with_noopener():
    body = '<a href="https://other.example/" target="_blank" rel="noopener">Other</a>'

    assert security.unsafe_cross_origin_links(make_context(page("", body))).passed


def test_cross_origin_links_fail_listing_blank_targets_without_noopener():
    body = '<a href="https://other.example/" target="_blank">Other</a><a href="/in" target="_blank">In</a>'

    outcome = security.unsafe_cross_origin_links(make_context(page("", body)))

    assert outcome.errors == {"missing_noopener": ["https://other.example/"]}


def test_hsts_passes_with_a_max_age():
    headers = {"strict-transport-security": "max-age=31536000; includeSubDomains"}

    assert security.hsts(make_context(headers=headers)).passed


def test_hsts_fails_when_missing():
    assert security.hsts(make_context()).errors == {"missing": None}


def test_hsts_fails_with_a_zero_max_age():
    outcome = security.hsts(make_context(headers={"strict-transport-security": "max-age=0"}))

    assert outcome.errors == {"bad_format": "max-age=0"}


def test_plaintext_email_passes_without_addresses():
    assert security.plaintext_email(make_context(page("", "<p>Write to us with the contact form.</p>"))).passed


def test_plaintext_email_fails_listing_visible_and_mailto_addresses():
    body = '<p>Mail sales@shop.example today.</p><a href="mailto:help@shop.example?subject=Hi">Help</a>'

    outcome = security.plaintext_email(make_context(page("", body)))

    assert outcome.errors == {"found": ["sales@shop.example", "help@shop.example"]}


def test_content_security_policy_passes_with_the_header():
    outcome = security.content_security_policy(make_context(headers={"content-security-policy": "default-src 'self'"}))

    assert outcome.value == "default-src 'self'"


def test_content_security_policy_passes_with_a_meta_tag():
    head = '<meta http-equiv="Content-Security-Policy" content="default-src \'self\'">'

    assert security.content_security_policy(make_context(page(head))).passed


def test_content_security_policy_passes_when_missing_since_it_is_optional():
    outcome = security.content_security_policy(make_context())

    assert outcome.passed
    assert outcome.value is None


def test_content_security_policy_fails_when_it_allows_inline_scripts_or_any_host():
    policy = "default-src 'self'; script-src 'self' 'unsafe-inline' https:"

    outcome = security.content_security_policy(make_context(headers={"content-security-policy": policy}))

    assert outcome.errors == {
        "weak": ["'unsafe-inline' allows injected inline scripts", "https: allows scripts from anywhere"]
    }


def test_content_security_policy_accepts_unsafe_inline_next_to_a_nonce():
    policy = "script-src 'nonce-r4nd0m' 'unsafe-inline' 'strict-dynamic'"

    assert security.content_security_policy(make_context(headers={"content-security-policy": policy})).passed


def test_content_security_policy_fails_when_scripts_are_not_restricted():
    policy = "img-src 'self'"

    outcome = security.content_security_policy(make_context(headers={"content-security-policy": policy}))

    assert outcome.errors == {"weak": ["no script-src or default-src: scripts are not restricted"]}
