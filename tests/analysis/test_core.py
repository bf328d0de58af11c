"""The analysis core on the real engine: a planted blunder is found with its refutation,
mates are mate scores, the evaluations are the engine's own at the same budget (asked
over a raw UCI pipe, not through our clients), an illegal move is refused at its ply,
and the analysis is the same on one engine or two."""

from __future__ import annotations

import asyncio
import re
import subprocess

import pytest

from ladder.analysis import AnalysisInputError, GamePositions, Judgement, analyse
from ladder.analysis.runner import GameAnalysis
from ladder.analysis.search import HASH_MB, Evaluation
from ladder.level_engine.engine import LevelEngine
from ladder.rules import Game
from ladder.variants import FSF_VARIANT, VARIANTS_INI

NODES = 10_000
#: Red's ninth ply puts the a1 chariot on b1, where the b8 cannon takes it (the b3
#: cannon is the screen) for nothing; Black's tenth takes it.
PLANTED = ["g4g5", "b10a8", "c1a3", "h8i8", "g5g6", "i8h8", "b1d2", "a7a6", "a1b1", "b8b1"]
#: Red mates in 2: two chariots against a bare general.
MATE_FEN = "4k4/9/9/9/9/9/9/9/9/R2K4R w - - 0 1"


def run_analysis(variant: str, fen: str | None, moves: list[str], engines: int = 1,
                 nodes: int = NODES) -> GameAnalysis:  # fmt: skip
    async def main() -> GameAnalysis:
        pool = [LevelEngine() for _ in range(engines)]

        def evaluator(engine):  # type: ignore[no-untyped-def]
            async def evaluate(game: Game) -> Evaluation:
                return (await engine.evaluate(game, nodes)).evaluation

            return evaluate

        game = GamePositions(variant, fen, moves)
        out = GameAnalysis(game.variant, game.start_fen, game.moves, nodes)
        try:
            async for ply in analyse(game, [evaluator(e) for e in pool]):
                out.plies.append(ply)
        finally:
            for engine in pool:
                await engine.close()
        return out

    return asyncio.run(main())


def test_planted_blunder_is_marked_with_its_refutation() -> None:
    analysis = run_analysis("xiangqi", None, PLANTED)
    blunder, refutation = analysis.plies[8], analysis.plies[9]
    assert (blunder.ply, blunder.move, blunder.side) == (9, "a1b1", "red")
    assert blunder.judgement is Judgement.BLUNDER, blunder.to_dict()
    assert blunder.drop >= 0.15 and blunder.loss_cp >= 300
    assert blunder.before.best != "a1b1" and blunder.best_wxf
    # the best line after the blunder is the capture, and Black's capture is not judged
    assert refutation.before.best == "b8b1" and refutation.before.pv[0] == "b8b1"
    assert refutation.judgement is None
    # it is Red's worst move of the game, and the summary counts it
    assert max((p for p in analysis.plies if p.side == "red"), key=lambda p: p.drop) is blunder
    red_blunders = [
        p for p in analysis.plies if p.side == "red" and p.judgement is Judgement.BLUNDER
    ]
    assert analysis.summary["red"].blunders == len(red_blunders) >= 1
    assert analysis.summary["red"].accuracy is not None
    assert analysis.summary["red"].accuracy < analysis.summary["black"].accuracy  # type: ignore[operator]


def test_mates_are_mate_scores_and_a_checkmate_ends_as_a_result() -> None:
    game = Game.from_fen("xiangqi", MATE_FEN)
    # i1i9 takes the ninth rank, the general steps aside, a1a10 mates
    moves = ["i1i9", "e10f10", "a1a10"]
    for move in moves:
        game.push(move)
    assert game.outcome() is not None and game.outcome().winner == "red"  # type: ignore[union-attr]
    analysis = run_analysis("xiangqi", MATE_FEN, moves)
    first, second, last = analysis.plies
    assert first.before.mate == 2, first.to_dict()
    assert second.before.mate == 1  # Red's view: Red mates in 1 with Black to move
    assert last.before.mate == 1 and last.before.best == "a1a10"
    assert last.after.result == "1-0" and last.after.mate == 0
    assert last.win_chance > 0.9 and last.judgement is None
    data = first.to_dict()
    assert data["eval_before"]["cp"] is None and data["eval_before"]["mate"] == first.before.mate


def raw_engine_scores(fen_moves: list[tuple[str, tuple[str, ...]]], variant: str,
                      nodes: int) -> list[tuple[str, int, str]]:  # fmt: skip
    """(score kind, value, bestmove) of each position, straight from the engine over UCI."""
    from ladder.engine_binary import engine_path

    proc = subprocess.Popen([str(engine_path())], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, bufsize=1)  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None

    def send(line: str) -> None:
        proc.stdin.write(line + "\n")  # type: ignore[union-attr]

    def until(prefix: str) -> list[str]:
        lines = []
        while True:
            line = proc.stdout.readline()  # type: ignore[union-attr]
            assert line, "the engine exited"
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines

    send("uci")
    until("uciok")
    send(f"setoption name VariantPath value {VARIANTS_INI.resolve()}")
    send("setoption name Threads value 1")
    send(f"setoption name Hash value {HASH_MB}")
    send(f"setoption name UCI_Variant value {FSF_VARIANT[variant]}")
    out = []
    for fen, moves in fen_moves:
        send("ucinewgame")
        send("isready")
        until("readyok")
        send(f"position fen {fen}" + (f" moves {' '.join(moves)}" if moves else ""))
        send(f"go nodes {nodes}")
        lines = until("bestmove")
        score = [m for ln in lines if (m := re.search(r" score (cp|mate) (-?\d+)", ln))][-1]
        out.append((score[1], int(score[2]), lines[-1].split()[1]))
    send("quit")
    proc.wait(10)
    return out


@pytest.mark.parametrize(
    ("variant", "moves"),
    [
        ("xiangqi", PLANTED),
        pytest.param(
            "atomic-xiangqi", ["h3h10", "i10h10", "b1c3", "b10c8", "h1g3"], marks=pytest.mark.slow
        ),
        pytest.param(
            "crazyhouse-xiangqi",
            ["h3h10", "i10h10", "b3b10", "a10b10", "N@d8"],
            marks=pytest.mark.slow,
        ),
    ],
)
def test_evaluations_equal_the_engines_own(variant: str, moves: list[str]) -> None:
    analysis = run_analysis(variant, None, moves)
    game = GamePositions(variant, None, moves)
    positions = [p.engine_position() for p in game.positions[:-1]]
    raw = raw_engine_scores(positions, variant, NODES)
    for ply, (kind, value, best) in zip(analysis.plies, raw, strict=True):
        red = ply.side == "red"
        cp, mate = ply.before.for_side(red)  # the side to move's view, as UCI scores
        assert (kind, value) == (("mate", mate) if mate is not None else ("cp", cp)), ply.ply
        assert ply.before.best == best


def test_rules_notes_for_blasts_and_drops() -> None:
    atomic = run_analysis("atomic-xiangqi", None, ["h3h10", "i10h10"], nodes=2000)
    assert (
        atomic.plies[0].note
        == "cannon shot on h10 removed: Red cannon h3 (the capturer), Black horse h10"
    )
    assert atomic.plies[1].note is None
    drops = run_analysis("crazyhouse-xiangqi", None, ["h3h10", "i10h10", "b3b10", "a10b10", "N@d8"],
                         nodes=2000)  # fmt: skip
    assert [p.note for p in drops.plies] == [None] * 4 + ["drop gives check"]


def test_an_illegal_move_is_refused_at_its_ply() -> None:
    with pytest.raises(AnalysisInputError) as caught:
        GamePositions("xiangqi", None, ["h3e3", "h8e8", "e3e9", "a10a9"])
    assert caught.value.ply == 3 and caught.value.field == "moves[2]"
    assert "ply 3" in str(caught.value)


def test_two_engines_give_the_one_engine_analysis() -> None:
    one = run_analysis("xiangqi", None, PLANTED[:6], engines=1)
    two = run_analysis("xiangqi", None, PLANTED[:6], engines=2)
    assert [p.to_dict() for p in one.plies] == [p.to_dict() for p in two.plies]
