"""API keys get a scope and an expiry (common.api_keys).

Every existing key gets `write`, stored on its row, which is what it could do before; none expires.
"""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("reports", "0017_audit_start_attempts"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="apikey",
            name="expires_at",
            field=models.DateTimeField(
                blank=True, help_text="From then on the key is refused like a revoked one; empty for never.", null=True
            ),
        ),
        migrations.AddField(
            model_name="apikey",
            name="scope",
            field=models.CharField(
                choices=[("read", "Read only"), ("write", "Read and write")],
                default="write",
                help_text="Read only: GET, HEAD and OPTIONS; read and write: everything its user may do.",
                max_length=5,
            ),
        ),
        migrations.AddConstraint(
            model_name="apikey",
            constraint=models.CheckConstraint(
                condition=models.Q(("scope__in", ["read", "write"])), name="reports_apikey_scope_valid"
            ),
        ),
    ]
