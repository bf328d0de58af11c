#!/usr/bin/env python3
"""Structure figures of the code base: import cycles between the modules of ladder/ and
protocol/ (an import inside a function or under ``if TYPE_CHECKING`` counts: a cycle
held apart by one is still a cycle), modules of ladder/ over 450 lines, functions over
80 lines (docs/architecture.md quotes them).

    python3 scripts/measure_structure.py [--module-lines 450] [--function-lines 80]
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

PACKAGES = ("ladder", "protocol")


def module_name(path: Path) -> str:
    parts = list(path.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources(root: Path) -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            out[module_name(path.relative_to(root))] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every project module `module` imports: at module level, inside a function, or
    under ``if TYPE_CHECKING`` (a cycle held apart by any of them is still a cycle)."""
    tree = ast.parse(path.read_text())
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _resolve(alias.name, modules)
                if target:
                    found.add(target)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                target = _resolve(f"{base}.{alias.name}", modules) or _resolve(base, modules)
                if target:
                    found.add(target)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    found.discard(module)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            strong(v)
    return sorted(out)


def package_parents(graph: dict[str, set[str]]) -> None:
    """A package's ``__init__`` re-exports its modules: a module importing its own
    package is not a cycle of the code's design, so those edges are dropped."""
    for module, targets in graph.items():
        for target in list(targets):
            if module.startswith(target + "."):
                targets.discard(target)


def long_functions(path: Path, limit: int) -> list[tuple[str, int, int]]:
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > limit:
                out.append((node.name, node.lineno, length))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, default=Path("."))
    parser.add_argument("--module-lines", type=int, default=450)
    parser.add_argument("--function-lines", type=int, default=80)
    args = parser.parse_args()
    modules = sources(args.root)
    graph = {m: imports(m, p, modules) for m, p in modules.items()}
    package_parents(graph)
    found = cycles(graph)
    print(f"import cycles (ladder/, protocol/; any import counts): {len(found)}")
    for component in found:
        print("  " + " <-> ".join(component))
    long_modules = []
    for module, path in modules.items():
        lines = len(path.read_text().splitlines())
        if module.startswith("ladder") and lines > args.module_lines:
            long_modules.append((lines, str(path.relative_to(args.root))))
    print(f"modules over {args.module_lines} lines in ladder/: {len(long_modules)}")
    for lines, name in sorted(long_modules, reverse=True):
        print(f"  {lines:5d} {name}")
    long = []
    for path in modules.values():
        for name, line, length in long_functions(path, args.function_lines):
            long.append((length, f"{path.relative_to(args.root)}:{line} {name}"))
    print(f"functions over {args.function_lines} lines (ladder/, protocol/): {len(long)}")
    for length, where in sorted(long, reverse=True):
        print(f"  {length:5d} {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
