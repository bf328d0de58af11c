"""``ladder doctor``: is this installation able to serve the ladder, and if not, why.

It checks, and says in one line each what is wrong:

* the engine: found (:func:`ladder.engine_binary.find_engine`), starts, answers the UCI
  handshake, and has our patches' UCI option ``FinalInfoOnly``;
* the variants: the engine loads ``variants.ini`` and confirms our three rule sets;
* the levels file: it parses and every level is valid (:func:`ladder.levels.load_levels`);
* the reference positions: perft of the worked facts of docs/rules.md, by the engine
  and by the rules checker, each equal to the documented count and to each other, move
  by move (a stock engine fails the atomic blast);
* pyffish, if installed: that it plays our rules (a stock build does not), since PGN
  notation comes from it.

Exit status 0 when everything is right, 1 when anything is wrong.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ladder.engine_binary import PATCHED_OPTION, EngineNotBuilt, FoundEngine, find_engine
from ladder.engine_cli import add_engine_option
from ladder.levels import LEVELS_FILE, LevelsError, load_levels
from ladder.rules import Game, RulesError, divide
from ladder.variants import FSF_VARIANT, VARIANT_IDS, VARIANTS_INI
from protocol.errors import EngineError
from protocol.process import Timeouts
from protocol.uci import UciEngine

__all__ = ["REFERENCE_POSITIONS", "Finding", "ReferencePosition", "add_doctor", "diagnose"]

#: Seconds one reference perft may take in the engine (they take milliseconds).
PERFT_TIMEOUT = 60.0


@dataclass(frozen=True)
class ReferencePosition:
    """A worked fact of docs/rules.md as a perft count, checked in both implementations."""

    fact: str  #: what it shows, as docs/rules.md says it
    variant: str
    fen: str | None  #: None: the variant's start position
    moves: tuple[str, ...]
    depth: int
    nodes: int  #: the documented count
    #: the documented number of drops per piece letter among the first moves, if any
    drops: dict[str, int] = field(default_factory=dict)


REFERENCE_POSITIONS: tuple[ReferencePosition, ...] = (
    *(
        ReferencePosition(f"xiangqi start, depth {d}", "xiangqi", None, (), d, n)
        for d, n in ((1, 44), (2, 1_920), (3, 79_666))
    ),
    ReferencePosition(
        "crazyhouse-xiangqi drop zones (45 / 90 / 10 + 45 points, less the generals')",
        "crazyhouse-xiangqi",
        "3k5/9/9/9/9/9/9/9/9/4K4[ABRNCP] w - - 0 1",
        (),
        1,
        408,
        {"A": 44, "B": 44, "R": 88, "N": 88, "C": 88, "P": 54},
    ),
    ReferencePosition(
        "atomic-xiangqi: a chariot taking on d8 blows up the general on d9 (game over)",
        "atomic-xiangqi",
        "9/3ka4/3cb4/9/9/9/3R5/9/9/4K4 w - - 0 1",
        ("d4d8",),
        1,
        0,
    ),
    ReferencePosition(
        "atomic-xiangqi: the blast on d8 takes e8 (orthogonal), e9 (diagonal) stays",
        "atomic-xiangqi",
        "5k3/4a4/3cb4/9/9/9/3R5/9/9/4K4 w - - 0 1",
        ("d4d8",),
        1,
        5,
    ),
)


@dataclass(frozen=True)
class Finding:
    """One line of the report."""

    check: str  #: engine, variants, levels, reference, pyffish
    ok: bool
    message: str

    def line(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'}  {self.check:<9}  {self.message}"


def _drops(counts: dict[str, int]) -> dict[str, int]:
    return dict(Counter(move[0] for move in counts if "@" in move))


def _mismatch(ref: ReferencePosition, who: str, counts: dict[str, int]) -> str | None:
    """What is wrong with one implementation's perft of ``ref``, None if nothing."""
    total = sum(counts.values())
    if total != ref.nodes:
        return f"{ref.fact}: {who} counts {total:,}, docs/rules.md {ref.nodes:,}"
    drops = _drops(counts)
    if ref.drops and drops != ref.drops:
        return f"{ref.fact}: {who} finds drops {drops}, docs/rules.md {ref.drops}"
    return None


def _checker_counts(ref: ReferencePosition) -> dict[str, int]:
    game = Game.from_fen(ref.variant, ref.fen, ref.moves)
    return divide(game, ref.depth) if game.outcome() is None else {}


def check_levels(path: Path) -> Finding:
    try:
        table = load_levels(path)
    except (OSError, tomllib.TOMLDecodeError, LevelsError, ValueError) as exc:
        message = str(exc)  # some name the file already
        return Finding("levels", False, message if str(path) in message else f"{path}: {message}")
    count = sum(len(levels) for levels in table.values())
    return Finding("levels", True, f"{path}: {count} levels of {len(table)} variants")


def check_pyffish() -> Finding:
    """pyffish, if installed, must play our rules (it writes PGN move notation)."""
    try:
        import pyffish
    except ImportError:
        return Finding(
            "pyffish",
            True,
            "not installed: PGN moves are written in canonical notation, not WXF "
            "(`ladder engine build --pyffish` builds and installs it)",
        )
    pyffish.load_variant_config(VARIANTS_INI.read_text())
    ref = REFERENCE_POSITIONS[-1]
    want = sorted(_checker_counts(ref))
    fen = Game.from_fen(ref.variant, ref.fen).start_fen
    try:
        got = sorted(pyffish.legal_moves(FSF_VARIANT[ref.variant], fen, list(ref.moves)))
    except ValueError as exc:
        got = [f"error: {exc}"]
    if got != want:
        return Finding(
            "pyffish",
            False,
            f"{pyffish.__file__}: does not play our rules ({ref.fact}: moves {got}, "
            f"rules checker {want}); install the patched build: `ladder engine build --pyffish`",
        )
    return Finding("pyffish", True, f"{pyffish.__file__}: plays our rules")


async def check_engine(found: FoundEngine) -> list[Finding]:
    """The engine, the variants and the reference positions (all need the engine)."""
    build = found.build_key or "not built by `ladder engine build`: no build key"
    where = f"{found.path} (from {found.source}; {build})"
    try:
        engine = await UciEngine.start(found.path, timeouts=Timeouts())
    except (EngineError, OSError) as exc:
        return [Finding("engine", False, f"{where}: does not answer the UCI handshake: {exc}")]
    findings: list[Finding] = []
    async with engine:
        name = engine.id.get("name", "an engine without a name")
        if PATCHED_OPTION in engine.options:
            findings.append(Finding("engine", True, f"{where}: {name}, patched"))
        else:
            findings.append(
                Finding(
                    "engine",
                    False,
                    f"{where}: {name} has no {PATCHED_OPTION} option: not our patched build",
                )
            )
        try:
            await engine.load_variants(VARIANTS_INI)
            for variant in VARIANT_IDS:
                await engine.set_variant(FSF_VARIANT[variant])
        except EngineError as exc:
            findings.append(Finding("variants", False, f"{VARIANTS_INI}: {exc}"))
            return findings
        findings.append(Finding("variants", True, f"{VARIANTS_INI}: {', '.join(VARIANT_IDS)}"))
        findings.extend(await _reference_findings(engine))
    return findings


async def _reference_findings(engine: UciEngine) -> list[Finding]:
    problems: list[str] = []
    for ref in REFERENCE_POSITIONS:
        try:
            checker = _checker_counts(ref)  # the checker accepts the position first
        except RulesError as exc:
            problems.append(f"{ref.fact}: the rules checker refuses it: {exc}")
            continue
        try:
            await engine.set_variant(FSF_VARIANT[ref.variant])
            counts = await engine.perft(ref.fen, ref.moves, ref.depth, timeout=PERFT_TIMEOUT)
        except EngineError as exc:
            problems.append(f"{ref.fact}: the engine failed: {exc}")
            if engine.closed:
                break
            continue
        wrong = [
            _mismatch(ref, "the rules checker", checker),
            _mismatch(ref, "the engine", counts),
        ]
        if wrong == [None, None] and counts != checker:
            differ = sorted(set(counts.items()) ^ set(checker.items()))[:3]
            wrong.append(f"{ref.fact}: engine and rules checker differ on {differ}")
        problems.extend(w for w in wrong if w is not None)
    if problems:
        return [Finding("reference", False, problem) for problem in problems]
    return [
        Finding(
            "reference",
            True,
            f"{len(REFERENCE_POSITIONS)} worked facts of docs/rules.md: engine and rules "
            "checker agree, move by move",
        )
    ]


def diagnose(engine: Path | None = None, levels: Path = LEVELS_FILE) -> list[Finding]:
    """Every check; ``engine`` is the ``--engine`` option (None: the usual lookup)."""
    findings: list[Finding] = []
    try:
        found = find_engine(engine)
    except EngineNotBuilt as exc:
        findings.append(Finding("engine", False, str(exc)))
        findings.append(Finding("variants", False, "not checked: no engine"))
        findings.append(Finding("reference", False, "not checked: no engine"))
    else:
        findings.extend(asyncio.run(check_engine(found)))
    findings.append(check_levels(levels))
    findings.append(check_pyffish())
    return findings


def add_doctor(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "doctor",
        help="check the engine, variants, levels and reference positions",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument(
        "--levels",
        type=Path,
        default=LEVELS_FILE,
        help="the levels file to check (default: the shipped one)",
    )
    add_engine_option(p)
    p.set_defaults(func=_cmd_doctor)


def _cmd_doctor(args: argparse.Namespace) -> int:
    findings = diagnose(args.engine, args.levels)
    for finding in findings:
        print(finding.line())
    bad = sum(not f.ok for f in findings)
    if bad:
        print(f"ladder doctor: {bad} problem(s)", file=sys.stderr)
    return 1 if bad else 0
