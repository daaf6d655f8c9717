"""A real OpenID Connect provider for the single sign-on tests: allauth's own (allauth.idp.oidc).

It is a second Django project in this package (its settings, URLs and WSGI application, a
SQLite database of its own in a temporary directory), served by granian in its own process on a
free port, as a company's identity provider would be (tests/oidc_provider/server.py). The
service under test knows it only by its address (OIDC_ISSUER) and a registered client.
"""
