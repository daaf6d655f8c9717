"""`{{ link|domain_query:request }}`: what a page's URL of a link adds to name its domain (shortener/domains.py)."""

from django import template
from django.http import HttpRequest

from shortener import domains
from shortener.models import ShortLink

register = template.Library()


@register.filter
def domain_query(link: ShortLink, request: HttpRequest) -> str:
    return domains.domain_query(request, link.domain)
