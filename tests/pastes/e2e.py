"""The Python side of encrypted pastes, taken from pastes/README.md so that the documented snippet is what runs."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "pastes" / "README.md"


def readme_snippet() -> dict:
    """Run the README's encryption snippet (the python block after `<!-- e2e-snippet -->`) and return its names."""
    text = README.read_text(encoding="utf-8")
    match = re.search(r"<!-- e2e-snippet -->\s*```python\n(.*?)```", text, re.DOTALL)
    assert match, "pastes/README.md lost its encryption snippet"
    names: dict = {}
    exec(compile(match.group(1), str(README), "exec"), names)  # our own documentation, run as written
    return names


snippet = readme_snippet()
encrypt = snippet["encrypt"]
decrypt = snippet["decrypt"]
