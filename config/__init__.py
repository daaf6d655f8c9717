"""The project's settings, URLs and site-wide views.

`__version__` is the service's one version number: /healthz reports it, the OpenAPI document's
`info.version` is it, pyproject.toml reads it, and CHANGELOG.md's newest released section names it.
"""

__version__ = "0.2.0"
