"""Read deploy/Dockerfile into stages and instructions, so that the tests can run its
steps without Docker (there is no daemon on the machines the suite runs on)."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"


@dataclass(frozen=True)
class Instruction:
    keyword: str  #: upper case: FROM, RUN, ENV, ...
    args: str  #: the rest of the (joined) line


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]

    def assignments(self) -> list[tuple[str, str]]:
        """The ARG defaults and ENV values, in order, unexpanded (``$NAME`` refers to an
        earlier one or to the base image's environment, as in Docker)."""
        pairs: list[tuple[str, str]] = []
        for ins in self.instructions:
            if ins.keyword in ("ARG", "ENV"):
                for pair in shlex.split(ins.args):
                    key, _, value = pair.partition("=")
                    pairs.append((key, value))
        return pairs


def expand(text: str, values: dict[str, str]) -> str:
    """``$NAME`` / ``${NAME}`` replaced from ``values`` (unknown names are left)."""
    return re.sub(
        r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?",
        lambda m: values.get(m.group(1), m.group(0)),
        text,
    )


def exec_form(args: str) -> list[str]:
    """The argv of a JSON-form CMD (exec form); shell form is refused."""
    argv = json.loads(args)
    assert isinstance(argv, list) and all(isinstance(a, str) for a in argv), args
    return argv


def parse(path: Path = DOCKERFILE) -> list[Stage]:
    """The stages of a Dockerfile (comments dropped, continuation lines joined)."""
    stages: list[Stage] = []
    logical = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not logical and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            logical += line[:-1] + " "
            continue
        logical += line
        keyword, _, args = logical.partition(" ")
        logical = ""
        keyword = keyword.upper()
        args = args.strip()
        if keyword == "FROM":
            words = args.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            stages.append(Stage(words[0], name))
        else:
            assert stages, f"{path}: {keyword} before FROM"
            stages[-1].instructions.append(Instruction(keyword, args))
    return stages
