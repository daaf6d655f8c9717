from common.authentication import ApiKeyAuthentication


class PasteKeyAuthentication(ApiKeyAuthentication):
    """`Authorization: <key>`, the bare pastes key; a leading `Bearer ` is tolerated."""

    model_label = "pastes.ApiKey"
    keyword = "Bearer"
    keyword_required = False
