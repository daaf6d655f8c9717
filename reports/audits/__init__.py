"""Site audits (issue 22 item 1): crawl a site from a start page, analyse each page as a report.

- `services.py`: create, re-run and delete an audit (every caller goes through here);
- `crawl.py`: the tasks (start an audit, follow each finished page's links, finish it);
- `discovery.py`: which URLs a crawl may visit (same host, robots.txt, sitemap.xml);
- `hosts.py`: at most REPORTS_AUDIT_HOST_FETCHES fetches per host at once, across workers;
- `summary.py`: the summary of a finished audit, its budget verdict and comparisons;
- `exports.py`: an audit's pages and grouped issues as CSV and JSON, streamed.
"""
