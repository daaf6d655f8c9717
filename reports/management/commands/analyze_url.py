"""Run the website analysis engine from the command line, without the API."""

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reports.analysis import AnalysisError, AnalysisResult, analyze

# Evidence is cut to this many characters per line; --json shows all of it.
DETAIL_WIDTH = 90


class Command(BaseCommand):
    help = "Analyse the page at URL and print its score, rating and failed checks (or the whole result as JSON)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("url")
        parser.add_argument("--json", action="store_true", help="Print the whole result as JSON.")

    def handle(self, *args: object, url: str, json: bool, **options: object) -> None:
        try:
            result = analyze(url)
        except AnalysisError as exc:
            raise CommandError(exc.message) from exc
        if json:
            self.stdout.write(_dumps(result.to_json(), indent=2))
        else:
            self.stdout.write(render_text(result))


def _dumps(value: object, indent: int | None = None) -> str:
    return json.dumps(value, indent=indent, ensure_ascii=False)


def render_text(result: AnalysisResult) -> str:
    """The score, the rating, the timing and a table of failed checks grouped by category."""
    lines = [
        f"URL:       {result.url}",
        f"Final URL: {result.final_url}",
        f"Score:     {result.score}/100 ({result.rating})",
        "By category: " + ", ".join(f"{category} {score}" for category, score in result.scores.items()),
        f"Timing:    first byte {result.timing['ttfb_ms']} ms, page {result.timing['total_ms']} ms",
        "",
    ]
    failed = {
        category: {key: check for key, check in checks.items() if not check["passed"]}
        for category, checks in result.results.items()
    }
    if not any(failed.values()):
        return "\n".join([*lines, "All checks passed."])
    count = sum(len(checks) for checks in failed.values())
    lines.append(f"Failed checks ({count}):")
    width = max(len(key) for checks in failed.values() for key in checks)
    for category, checks in failed.items():
        if not checks:
            continue
        lines.append(f"\n{category}")
        for key, check in checks.items():
            for index, (kind, detail) in enumerate(check["errors"].items()):
                label = f"{key:<{width}}  {check['importance']:<6}" if index == 0 else " " * (width + 8)
                evidence = kind if detail is None else f"{kind}: {_dumps(detail)}"
                if len(evidence) > DETAIL_WIDTH:
                    evidence = evidence[: DETAIL_WIDTH - 1] + "…"
                lines.append(f"  {label}  {evidence}")
    return "\n".join(lines)
