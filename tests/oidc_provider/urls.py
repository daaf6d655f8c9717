from django.urls import include, path

urlpatterns = [
    path("", include("allauth.idp.urls")),  # /.well-known/openid-configuration, /identity/o/…
    path("accounts/", include("allauth.urls")),  # the provider's own sign-in page
]
