"""The account area under /accounts/: sign-in, sign-up, keys and profile of the people who use the service."""

from django.urls import path, register_converter

from accounts import keys

register_converter(keys.KeyInterfaceConverter, "keyinterface")

app_name = "accounts"

urlpatterns = [
    path("keys/", keys.keys, name="keys"),
    path("keys/<keyinterface:interface>-<int:pk>/revoke", keys.revoke, name="key-revoke"),
]
