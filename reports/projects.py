"""The project of a host, made on first use: the reports' writes (services.py) and the audits'
(audits/services.py) both put what they store in one."""

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from reports.models import Project


def project_get_or_create(*, owner: AbstractBaseUser, name: str) -> Project:
    # get_or_create retries the lookup when a parallel request inserted the same
    # (owner, name) first: the unique constraint decides, so both share one project.
    # The row lock makes a parallel project delete wait until the caller's transaction
    # commits, so a report is never written into a project that is being deleted.
    with transaction.atomic():
        project, _ = Project.objects.select_for_update().get_or_create(owner=owner, name=name)
    return project
