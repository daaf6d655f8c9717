from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class ShortenerConfig(AppConfig):
    name = "shortener"
    verbose_name = "Short links"

    def ready(self) -> None:
        from shortener.models import ShortLink
        from shortener.services.links import forget_cached_link

        post_save.connect(forget_cached_link, sender=ShortLink, dispatch_uid="shortener-forget-on-save")
        post_delete.connect(forget_cached_link, sender=ShortLink, dispatch_uid="shortener-forget-on-delete")
