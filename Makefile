# The two commands of the README: `make run` and `make test`. Both bootstrap .venv themselves.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# One worker per core: measured fastest for granian on the 2-core machines (docs/deployment.md, 'Serving').
WEB_CONCURRENCY ?= $(shell nproc 2>/dev/null || echo 2)
# Threads per worker, each with its own database connection (docs/deployment.md, 'Serving'). Under ASGI
# granian runs one thread per worker, the event loop that reads request bodies, and config.asgi
# runs the application on WEB_THREADS threads of its own (config/front.py).
WEB_THREADS ?= 4
export DJANGO_SETTINGS_MODULE := config.settings

.PHONY: run test lint pytest catalogs bench bench-scale bench-peers clean

# Resolved only when a venv has to be made, so an existing .venv needs no interpreter search.
$(VENV)/bin/python:
	@python="$${PYTHON:-$$(sh scripts/find_python.sh)}" || exit 1; \
	echo "Creating $(VENV) with $$python"; \
	"$$python" -m venv $(VENV)

$(VENV)/.installed-run: requirements.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $@

$(VENV)/.installed-dev: requirements-dev.txt $(VENV)/.installed-run
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $@

# Secrets of the local demo, made once; manage.py finds them too (common.env.use_local_secret_files).
.secret_key: | $(VENV)/bin/python
	@$(PY) -c 'import secrets; print(secrets.token_urlsafe(50))' > $@
	@chmod 600 $@

.shortener_adminpwd: | $(VENV)/bin/python
	@$(PY) -c 'import secrets; print(secrets.token_urlsafe(12))' > $@
	@chmod 600 $@

# collectstatic takes half a minute (compressing every file), so it runs only when a static
# file or the installed packages changed since the manifest it writes last time.
STATIC_MANIFEST := staticfiles/staticfiles.json
$(STATIC_MANIFEST): $(shell find static */static -type f 2>/dev/null) $(VENV)/.installed-run | .secret_key
	@echo "Collecting static files (only when they changed)"
	@$(PY) manage.py collectstatic --noinput -v0
	@touch $@

# Translations: the .po catalogs compiled to .mo with polib, no gettext tools needed; only those
# changed since their .mo (common/catalogs.py). DEBUG=1 only so that settings load without a SECRET_KEY.
catalogs: $(VENV)/.installed-run
	@DEBUG=1 $(PY) manage.py compile_catalogs -v0

# Sign-up is open here, so that a newcomer can make an account (ACCOUNTS_REGISTRATION, docs/deployment.md).
run: $(VENV)/.installed-run .secret_key .shortener_adminpwd $(STATIC_MANIFEST) catalogs
	@export SECRET_KEY_FILE=$(CURDIR)/.secret_key; \
	export ACCOUNTS_REGISTRATION="$${ACCOUNTS_REGISTRATION:-open}"; \
	if [ -z "$$SHORTENER_ADMINPWD$$SHORTENER_ADMINPWD_FILE$$SHORTENER_HASHED_ADMINPWD$$SHORTENER_HASHED_ADMINPWD_FILE" ]; then \
		export SHORTENER_ADMINPWD_FILE=$(CURDIR)/.shortener_adminpwd; \
	fi; \
	$(PY) manage.py migrate --noinput && \
	$(PY) manage.py create_demo_user --keys-file .demo_keys --base-url http://127.0.0.1:$(PORT) && \
	echo "Serving on http://127.0.0.1:$(PORT)/ with the analysis worker (Ctrl-C stops both)" && \
	WEB_THREADS=$(WEB_THREADS) exec $(PY) scripts/serve.py -- \
		$(VENV)/bin/granian --interface asgi config.asgi:application --host 127.0.0.1 --port $(PORT) \
		--workers $(WEB_CONCURRENCY) --blocking-threads 1 $$([ "$${LOG_FORMAT:-text}" = json ] || echo --access-log) \
		--respawn-failed-workers --respawn-interval 1 --workers-kill-timeout 5

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

pytest: $(VENV)/.installed-dev catalogs
	$(VENV)/bin/pytest $(PYTEST_ARGS)

test: lint pytest

# Then a 200-page site audit (bench/audit.py) on a fresh SQLite file, as make run serves, and 20
# creates of a small page with rendering on, one at a time (bench/create_rendered.py: 201s and p50).
bench: $(VENV)/.installed-dev
	$(PY) -m bench.run $(BENCH_ARGS)
	rm -f /tmp/webtools_bench_audit.sqlite3 /tmp/webtools_bench_audit.sqlite3-wal /tmp/webtools_bench_audit.sqlite3-shm
	$(PY) bench/audit.py --database-url sqlite:////tmp/webtools_bench_audit.sqlite3 --pages 200
	$(PY) bench/create_rendered.py --database-url sqlite:////tmp/webtools_bench_rendered.sqlite3

# Every endpoint at 10^3 and 10^6 rows (PostgreSQL) and 10^5 (SQLite): bench/scale.py, bench/README.md.
bench-scale: $(VENV)/.installed-dev
	$(PY) -m bench.scale $(BENCH_ARGS)

# Our paste read next to pinnwand's (PyPI, in a venv of its own), both on PostgreSQL with two processes.
bench-peers: $(VENV)/.installed-dev
	$(PY) -m bench.peers $(BENCH_ARGS)

clean:
	rm -rf $(VENV) staticfiles db.sqlite3 db.sqlite3-shm db.sqlite3-wal .demo_keys
