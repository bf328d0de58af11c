"""The bodies of ``POST /v1/analysis`` (pydantic; they make its OpenAPI schema): the
request, and the lines of the NDJSON stream that answers it."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from ladder.analysis.judgement import Judgement
from ladder.service.domain.models import ErrorDetail, GameRequest, unasked
from ladder.variants import VariantId

Side = Literal["red", "black"]


class AnalysisRequest(GameRequest):
    """A game to analyse: the variant, start FEN + moves, the budget, where to start."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"variant": "xiangqi", "moves": ["h3e3", "h8e8", "h1g3"], "nodes": 50000},
                {
                    "variant": "xiangqi",
                    "moves": ["h3e3", "h8e8", "h1g3"],
                    "nodes": 50000,
                    "notations": ["chinese"],
                },
            ]
        },
    )

    nodes: Annotated[
        int | None,
        Field(
            ge=1,
            strict=True,
            description="Nodes searched in each position (default and maximum: the "
            "service's `--analysis-nodes` and `--analysis-max-nodes`, 150,000 and "
            "2,000,000 unless configured). Level 8 searches up to 600,000 nodes a move: an "
            "analysis weaker than that may call a level-8 move a mistake.",
        ),
    ] = None
    from_ply: Annotated[
        int,
        Field(
            ge=1,
            strict=True,
            description="Stream from this ply on (1: the first move of `moves`): to resume "
            "an interrupted stream on any instance, send the same request with the next "
            "ply you have not received. The answer is the same as the first stream's "
            "would have been.",
        ),
    ] = 1


class AnalysisScore(BaseModel):
    """A position's evaluation from Red's side: `cp`, or `mate` (positive: Red mates in
    that many moves; negative: Black does); a finished game has `result`, with `mate`
    0 for a decisive one and `cp` 0 for a draw."""

    cp: int | None
    mate: int | None
    result: Literal["1-0", "0-1", "1/2-1/2"] | None = None


class AnalysisStart(BaseModel):
    """The first line: what is analysed."""

    type: Literal["start"] = "start"
    variant: VariantId
    fen: str = Field(description="The canonical start FEN.")
    plies: int = Field(description="Plies in the game (the last ply line's `ply`).")
    from_ply: int
    nodes: int = Field(description="Nodes searched in each position.")
    engine: str = Field(description="The engine build's key: part of what makes the result.")
    cached: bool = Field(description="The lines come from this instance's finished-result cache.")


class PlyNotation(BaseModel):
    """A ply's moves in one notation: the move played, the best move, the line."""

    move: str
    best: str | None
    pv: list[str]


class AnalysisPly(BaseModel):
    """One line per ply, in order, each as soon as it is done."""

    type: Literal["ply"] = "ply"
    ply: int = Field(description="1 for the first move of `moves`.")
    side: Side = Field(description="Who played the move.")
    move: str = Field(description="The move played (Fairy-Stockfish notation).")
    wxf: str = Field(description="The move in WXF notation.")
    eval_before: AnalysisScore = Field(description="The position before the move.")
    eval_after: AnalysisScore = Field(description="The position after the move.")
    best: str | None = Field(description="The engine's best move before this one.")
    best_wxf: str | None
    pv: list[str] = Field(
        description="The engine's line from the position before the move "
        "(up to 8 plies, each checked by the rules checker)."
    )
    pv_wxf: list[str]
    depth: int
    nodes: int
    loss_cp: int = Field(
        description="What the move lost, centipawns from the mover's side "
        "(evaluations capped at ±1000, a mate as the cap), 0 or more."
    )
    win_chance_before: float = Field(description="Red's win chance before the move, 0..1.")
    win_chance: float = Field(description="Red's win chance after the move, 0..1 (the graph).")
    drop: float = Field(description="The mover's win chance lost by the move, 0..1.")
    accuracy: float = Field(description="The move's accuracy, 0..100 (lichess's formula).")
    judgement: Judgement | None = Field(
        description="`inaccuracy` (the mover's win chance fell 5 points or more), `mistake` "
        "(10), `blunder` (15), or a mate let go or walked into; null otherwise, and always "
        "for the engine's own best move."
    )
    note: str | None = Field(
        description="What the rules did: an atomic blast, a crazyhouse drop that checks."
    )
    notations: dict[str, PlyNotation] | None = Field(
        None,
        exclude_if=unasked,
        examples=[
            {"chinese": {"move": "炮二平五", "best": "炮二平五", "pv": ["炮二平五", "马８进７"]}}
        ],
        description="With `notations` in the request: `move`, `best` and `pv` in each "
        "notation asked for, by name (absent otherwise).",
    )


class SideSummary(BaseModel):
    """One side's figures over the plies of this stream."""

    moves: int
    inaccuracies: int
    mistakes: int
    blunders: int
    mean_loss_cp: float | None = Field(description="Average centipawn loss (ACPL).")
    accuracy: float | None = Field(description="lichess's game accuracy, 0..100.")


class AnalysisSummary(BaseModel):
    """The last line of a finished stream."""

    type: Literal["summary"] = "summary"
    from_ply: int = Field(
        description="The summary covers the plies from this one on (the request's `from_ply`)."
    )
    plies: int
    red: SideSummary
    black: SideSummary


class AnalysisError(BaseModel):
    """The last line of a stream that could not finish (the engines failed, none was
    free in time, or the instance is stopping): ask again with `from_ply` =
    `resume_from_ply`, here or on another instance."""

    type: Literal["error"] = "error"
    error: ErrorDetail
    resume_from_ply: int


class AnalysisLine(RootModel[AnalysisStart | AnalysisPly | AnalysisSummary | AnalysisError]):
    """One line of the `application/x-ndjson` answer: `start`, then one `ply` per ply,
    then `summary` (or `error`), told apart by `type`."""

    root: Annotated[
        AnalysisStart | AnalysisPly | AnalysisSummary | AnalysisError, Field(discriminator="type")
    ]


__all__ = [
    "AnalysisError",
    "AnalysisLine",
    "AnalysisPly",
    "AnalysisRequest",
    "AnalysisScore",
    "AnalysisStart",
    "AnalysisSummary",
    "SideSummary",
]
