from django.conf import settings
from django.http import HttpRequest


def service(request: HttpRequest) -> dict[str, str]:
    return {"service_name": settings.SERVICE_NAME}
