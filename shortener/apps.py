from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class ShortenerConfig(AppConfig):
    name = "shortener"
    verbose_name = "Short links"

    def ready(self) -> None:
        from shortener.fastpath import forget_cached_link
        from shortener.models import ShortLink

        # The fast path's link cache must hear of every change or removal of a link, whoever
        # makes it (views, admin, shell); here because signals are connected once apps are ready.
        post_save.connect(forget_cached_link, sender=ShortLink, dispatch_uid="shortener-forget-on-save")
        post_delete.connect(forget_cached_link, sender=ShortLink, dispatch_uid="shortener-forget-on-delete")
