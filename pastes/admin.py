from django.contrib import admin

from common.admin import ApiKeyAdmin

from .models import ApiKey

admin.site.register(ApiKey, ApiKeyAdmin)
