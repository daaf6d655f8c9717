"""accounts.SignedInSession gives way to allauth's UserSession (allauth.usersessions).

Its rows are not copied: the table came with the same unreleased work (0002), so no deployment
signed anyone in through it.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_signed_in_session"),
        ("usersessions", "0001_initial"),
    ]

    operations = [
        migrations.DeleteModel(name="SignedInSession"),
    ]
