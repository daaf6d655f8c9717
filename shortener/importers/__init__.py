"""Imports from the shorteners people leave (issue 46, item 6): Shlink, Bitly, YOURLS and Kutt.

`detect.parse(text)` recognises a file of one of those formats by its content and gives its lines as
common.ForeignLink, each with its code, target, creation date, the visits the other shortener
counted and its tags where the format has them; None means "not one of these" and the file goes
on to the shortener's own formats (services/transfer.py). `saving.import_one()` imports a line: its code
is kept, and a code already taken here is reported, never overwritten. The visits come in as
`imported_visits`, shown apart from `counter` (the unique visits counted here): the other
shortener counted every click, so adding them up would mix two different measures.

Formats, from each product's documented export (the sample files are in tests/fixtures/shortener_imports/):
- shlink.py  Shlink's CSV export (the web client's "Export"): createdAt, domain, shortCode,
             shortUrl, longUrl, title, tags ("|"-separated), visits.
- bitly.py   Bitly's CSV export of links: its Bitlink fields (id or link, long_url, title,
             created_at, tags, clicks).
- yourls.py  YOURLS's `yourls_url` table (keyword, url, title, timestamp, ip, clicks), as CSV with
             a header row or as the SQL INSERTs of a dump (mysqldump, phpMyAdmin).
- kutt.py    Kutt's API JSON (GET /api/v2/links: {data: [{address, target, visit_count,
             created_at, …}], total, …}, or a list of those links). Kutt has no tags.
"""
