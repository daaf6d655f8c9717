from common.api_keys import AbstractApiKey


class ApiKey(AbstractApiKey):
    """A key for interface B (`Authorization: <key>`)."""

    key_prefix = "pst_"

    class Meta(AbstractApiKey.Meta):
        verbose_name = "pastes API key"
