"""The documentation stands on its own in a clone: its links resolve inside the
repository, and docs/rules.md names tests that exist."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules.md"


def markdown_files() -> list[Path]:
    return [
        ROOT / "README.md",
        ROOT / "engine" / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
    ]


def test_relative_links_resolve_inside_the_repository() -> None:
    broken = []
    for doc in markdown_files():
        for target in re.findall(r"\]\(([^)#\s]+)", doc.read_text()):
            if "://" in target:
                continue
            path = (doc.parent / target).resolve()
            if not path.exists() or ROOT not in path.parents:
                broken.append(f"{doc.relative_to(ROOT)}: {target}")
    assert not broken


def test_nothing_points_outside_the_repository_for_the_rules() -> None:
    """The rules' source was ../shared/RULES.md, which a clone does not have."""
    found = subprocess.run(
        ["git", "grep", "-n", "-e", "shared/RULES", "-e", "RULES.md", "--", ":!tests/test_docs.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout
    assert found == ""


def test_rules_md_names_tests_that_exist() -> None:
    """`tests/x.py::name` and `::name` (a test of the file named last)."""
    current: Path | None = None
    named = 0
    for path, name in re.findall(r"`(tests/[\w/]+\.py)?(?:::(\w+))?`", RULES.read_text()):
        if path:
            current = ROOT / path
            assert current.is_file(), path
        if name:
            assert current is not None, name
            tree = ast.parse(current.read_text())
            tests = {
                n.name
                for n in ast.walk(tree)
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
            }
            assert name in tests, f"{current.relative_to(ROOT)}::{name}"
            named += 1
    assert named > 50
