from django.apps import AppConfig


class PastesConfig(AppConfig):
    name = "pastes"
    verbose_name = "Pastes"
