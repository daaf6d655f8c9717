from django.apps import AppConfig


class ShortenerConfig(AppConfig):
    name = "shortener"
    verbose_name = "Short links"
