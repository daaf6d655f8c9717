# The two commands of the README: `make run` and `make test`. Both bootstrap .venv themselves.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# One worker per core: measured fastest for granian on the 2-core machines (README, 'Serving').
WEB_CONCURRENCY ?= $(shell nproc 2>/dev/null || echo 2)
# Threads per worker, each with its own database connection (README, 'Serving').
WEB_THREADS ?= 4
export DJANGO_SETTINGS_MODULE := config.settings

.PHONY: run test lint pytest bench clean

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

.secret_key: | $(VENV)/bin/python
	@$(PY) -c 'import secrets; print(secrets.token_urlsafe(50))' > $@
	@chmod 600 $@

run: $(VENV)/.installed-run .secret_key
	@export SECRET_KEY_FILE=$(CURDIR)/.secret_key; \
	$(PY) manage.py migrate --noinput && \
	$(PY) manage.py collectstatic --noinput -v0 && \
	$(PY) manage.py create_demo_user && \
	echo "Serving on http://127.0.0.1:$(PORT)/ with the analysis worker (Ctrl-C stops both)" && \
	exec $(PY) scripts/serve.py -- \
		$(VENV)/bin/granian --interface wsgi config.wsgi:application --host 127.0.0.1 --port $(PORT) \
		--workers $(WEB_CONCURRENCY) --blocking-threads $(WEB_THREADS) --access-log

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

pytest: $(VENV)/.installed-dev
	$(VENV)/bin/pytest $(PYTEST_ARGS)

test: lint pytest

bench: $(VENV)/.installed-dev
	$(PY) -m bench.run $(BENCH_ARGS)

clean:
	rm -rf $(VENV) staticfiles db.sqlite3 db.sqlite3-shm db.sqlite3-wal
