"""The account area under /accounts/: sign-in, sign-up, keys and profile of the people who use the service.

allauth's pages (/accounts/login/, /accounts/signup/, …) are mounted beside these in config/urls.py,
under their own un-namespaced names (account_login, account_signup, …), so that allauth's
documentation applies as it is.
"""

from django.urls import path, register_converter

from accounts import avatars, deletion, export, keys, profile, views

register_converter(keys.KeyInterfaceConverter, "keyinterface")

app_name = "accounts"

urlpatterns = [
    path("", views.home, name="home"),
    path("keys/", keys.keys, name="keys"),
    path("keys/<keyinterface:interface>-<int:pk>/revoke", keys.revoke, name="key-revoke"),
    path("profile/", profile.profile, name="profile"),
    path("avatars/<str:name>", avatars.serve, name="avatar"),
    path("export/", export.export, name="export"),
    path("delete/", deletion.delete, name="delete"),
    path("invitations/new", views.invite, name="invite"),
    path("invitations/<str:token>/", views.accept_invitation, name="invitation"),
]
