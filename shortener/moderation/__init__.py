"""Moderation for open instances (issue 46, item 5).

    reports.py    visitors report a link (rate-limited per address, no account); the queue
                  groups the open reports per link; admins disable, enable or dismiss
    blocklist.py  SHORTENER_BLOCKLIST_FILE: domains (subdomains included) refused at creation,
                  re-read when the file changes
    tasks.py      the periodic check that disables links whose target became blocked
    views.py      the report page and endpoint, the admin-mode queue, the 410 of a disabled link
    admin.py      the same queue in the Django admin

A disabled link keeps its code and statistics; it answers 410 from the cached copy (the fast
path carries `disabled`), and a change drops every process's copy as any link change does.
"""
