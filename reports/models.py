from common.api_keys import AbstractApiKey


class ApiKey(AbstractApiKey):
    """A key for interface A (`Authorization: Bearer <key>`)."""

    key_prefix = "rpt_"

    class Meta(AbstractApiKey.Meta):
        verbose_name = "reports API key"
