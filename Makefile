# The two commands of the README: `make run` (the app on the demo library) and `make test`.
DEMO_COURSE := Sistemas distribuídos para aprendizado profundo
# the demo library and its models in this folder (models/ also serves the tests)
LT := LECTURETUI_MODELS="$(CURDIR)/models" .venv/bin/lecturetui --home .

.PHONY: run test setup setup-dev lint

setup:
	@scripts/setup.sh

setup-dev:
	@scripts/setup.sh dev

run: setup
	@$(LT) ingest examples/seed_lectures.jsonl --course "$(DEMO_COURSE)"
	@$(LT) app

lint: setup-dev
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy

test: lint
	.venv/bin/pytest --cov --cov-report=term
