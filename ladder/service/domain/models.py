"""Request and response bodies of the HTTP API (pydantic; they make the OpenAPI schema).

Every string and list has a bound, so a request can never make the service hold or
parse more than the body limit allows; the rules checker judges the content.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from ladder.levels import LEVEL_NUMBERS, Rating, Variety
from ladder.notation.by_name import NOTATIONS, UnknownNotation, check_notation
from ladder.rules import MAX_MOVES, Reason
from ladder.service.domain.errors import ErrorCode
from ladder.service.operations.config import MAX_ELO, MAX_FEN_CHARS, MAX_MOVE_CHARS, MAX_SEED
from ladder.variants import VariantId

#: The levels a request may ask for, and how its description says so.
FIRST_LEVEL, LAST_LEVEL = LEVEL_NUMBERS[0], LEVEL_NUMBERS[-1]
_LEVELS_TEXT = f"{FIRST_LEVEL} to {LAST_LEVEL}"
#: The validation error of a request with neither or both of level and elo.
STRENGTH_ERROR = "level_or_elo"

Color = Literal["red", "black"]

# A move's example is a legal first move in every variant: schema-driven clients
# (schemathesis) put it in a game of any variant (a drop such as `A@e3` never reached an
# engine: illegal in xiangqi).
MoveStr = Annotated[str, Field(min_length=1, max_length=MAX_MOVE_CHARS, examples=["h3e3"])]
Fen = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_FEN_CHARS,
        examples=["rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"],
    ),
]
Moves = Annotated[
    list[MoveStr],
    Field(
        max_length=MAX_MOVES,  # the rules checker's bound
        description="Moves played from the start position, in Fairy-Stockfish UCI notation "
        "(`h3e3`, `b10c8`, drops `A@e3`).",
    ),
]


def _known_notation(name: str) -> str:
    try:
        return check_notation(name)
    except UnknownNotation as exc:
        raise PydanticCustomError("unknown_notation", "{why}", {"why": str(exc)}) from None


NotationName = Annotated[
    str, Field(min_length=1, max_length=32, examples=["chinese"]), AfterValidator(_known_notation)
]
_NOTATIONS_TEXT = ", ".join(f"`{n}`" for n in NOTATIONS)


def unasked(value: object) -> bool:
    """An answer's `notations` when none were asked for: left out (a lean answer)."""
    return value is None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GameRequest(_Strict):
    """What every request about a game starts with: the variant, start FEN and moves, and
    the notations to write moves in beside the coordinates."""

    variant: VariantId
    fen: Fen | None = Field(None, description="Start position; the variant's own if omitted.")
    moves: Moves = Field(default_factory=list)
    notations: list[NotationName] = Field(
        default_factory=list,
        max_length=8,
        examples=[["chinese", "wxf"]],
        description=f"Write the answer's moves also in these notations ({_NOTATIONS_TEXT}: "
        "`C2=5`, `炮二平五`, `馬８進７`; docs/rules.md), given in the answer's `notations` by "
        "name. An unknown name is refused (422, naming it); none asked for, no "
        "`notations` in the answer.",
    )


class OutcomeInfo(BaseModel):
    """How a game ended: `result` is `1-0` (Red won), `0-1` or `1/2-1/2`."""

    result: Literal["1-0", "0-1", "1/2-1/2"] = Field(examples=["1-0"])
    winner: Color | None = Field(description="`red`, `black`, or null for a draw", examples=["red"])
    reason: Reason = Field(
        description="Why the game ended (docs/rules.md).", examples=["checkmate"]
    )


class Score(BaseModel):
    """The engine's evaluation from the mover's point of view: `cp` or `mate`, never both.

    `mate` is in moves: positive when the mover mates, negative when it is mated. Both
    are null when the move played is not one the engine scored (a weak level's variety
    rule may play a move outside the lines the engine searched).
    """

    cp: int | None = Field(None, description="Centipawns; null for a mate score or no score.")
    mate: int | None = Field(None, description="Moves to mate; null unless a mate was found.")


#: The longest clock accepted (ms): a day.
MAX_CLOCK_MS = 86_400_000


class Clock(_Strict):
    """The clock of the side to move, for a timed game: the level still searches its
    node count, and also stops at a safe share of this clock (docs/service.md, "Timed
    games"), so the computer never loses on time."""

    remaining_ms: int = Field(
        ge=0, le=MAX_CLOCK_MS, strict=True, description="Time left on the mover's clock (ms)."
    )
    increment_ms: int = Field(
        default=0, ge=0, le=MAX_CLOCK_MS, strict=True, description="Added after each move (ms)."
    )
    moves_to_go: int | None = Field(
        default=None,
        ge=1,
        le=1000,
        strict=True,
        description="Moves to the next time control; omit for sudden death or increment only.",
    )


class MoveRequest(GameRequest):
    """Ask for the computer's move at a level, in a position given as start FEN + moves."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"variant": "xiangqi", "moves": ["h3e3"], "level": 3, "seed": 12345},
                {
                    "variant": "xiangqi",
                    "moves": ["h3e3"],
                    "level": 3,
                    "seed": 12345,
                    "notations": ["chinese", "wxf"],
                },
            ]
        },
    )

    level: Annotated[
        int | None,
        Field(
            ge=FIRST_LEVEL,
            le=LAST_LEVEL,
            strict=True,
            description=f"Strength, {_LEVELS_TEXT} (or give `elo`).",
        ),
    ] = None
    elo: Annotated[
        float | None,
        Field(
            ge=0,
            le=MAX_ELO,
            allow_inf_nan=False,
            strict=True,  # a number: not "1500", not true (as `level`)
            examples=[1200],
            description=(
                "Strength as a rating instead of a level: any value from level 1's measured "
                "Elo to level 8's (GET /v1/levels gives the span per variant); the settings "
                "are interpolated between the two measured levels around it."
            ),
        ),
    ] = None
    clock: Clock | None = Field(
        None,
        description="The mover's clock in a timed game (see `Clock`); omit for no clock.",
        examples=[{"remaining_ms": 60000, "increment_ms": 1000}],
    )
    seed: Annotated[
        int | None,
        Field(
            ge=0,
            le=MAX_SEED,
            strict=True,
            examples=[12345],
            description=(
                "Makes the answer reproducible (0 to 2^63-1); a random one is chosen "
                "(and returned) if omitted. Seeds the service draws stay below 2^53, so a "
                "JavaScript client can send them back unchanged."
            ),
        ),
    ] = None

    @model_validator(mode="after")
    def _one_strength(self) -> MoveRequest:
        if (self.level is None) == (self.elo is None):
            # A model-level error has no field of its own; its type names the one to blame.
            raise PydanticCustomError(
                STRENGTH_ERROR, f"give exactly one of level ({_LEVELS_TEXT}) and elo"
            )
        return self


class MoveResponse(BaseModel):
    """The move played, the engine's view of it, and the position after it."""

    variant: VariantId
    level: int | None = Field(description="The level asked for (None when asked by Elo).")
    elo: float | None = Field(None, description="The Elo asked for, if any.")
    move: str = Field(description="The move, in Fairy-Stockfish UCI notation.")
    ponder: str | None = Field(description="The reply the engine expects, if any.")
    score: Score
    depth: int
    nodes: int
    time_ms: int = Field(description="Wall time of the search, milliseconds.")
    time_limit_ms: int | None = Field(
        None,
        description="With a `clock`: the longest the search was allowed (`go movetime`), "
        "by the clock rule; null without one.",
    )
    seed: int
    fen: str = Field(description="The position after the move.")
    gives_check: bool
    outcome: OutcomeInfo | None = Field(description="Set when the move ends the game.")
    book: bool = Field(
        False, description="The move came from the level's opening book (nothing was searched)."
    )
    hurried: bool = Field(
        False,
        description="With a `clock`: no engine was free within the move's time, so the "
        "move was chosen without a search (the capture that takes the most at first sight, "
        "else a random legal move) rather than lose on time.",
    )
    levels_version: str = Field(
        "",
        description="Which ladder played it: the first 12 hex digits of the SHA-256 of the "
        "levels file (a recalibration changes what a level and a seed play).",
    )
    notations: dict[str, str] | None = Field(
        None,
        exclude_if=unasked,
        examples=[{"chinese": "炮二平五", "wxf": "C2=5"}],
        description="With `notations` in the request: `move` in each notation asked for, by "
        "name (absent otherwise).",
    )


class PositionRequest(GameRequest):
    """A position to check: start FEN (optional) and moves."""

    wxf: bool = Field(
        False, strict=True, description="Also give `moves` in WXF notation (`wxf` in the answer)."
    )


class PositionResponse(BaseModel):
    """What the rules checker says about a position."""

    variant: VariantId
    fen: str
    turn: Color
    legal_moves: list[str] = Field(
        description="The moves the side to move may play, sorted; none once the game is over "
        "(`outcome` set: a draw by repetition or the sixty-ply rule too, as `/v1/move` then "
        "refuses every move)."
    )
    check: bool
    outcome: OutcomeInfo | None
    wxf: list[str] | None = Field(
        None,
        description='With `"wxf": true`: each of `moves` in WXF notation (`C2=5`, `H8+7`, '
        "drops `A@52`), as in a match's PGN; canonical notation for a move the rules "
        'checker refuses. `"notations": ["wxf"]` gives the same in `notations`.',
    )
    notations: dict[str, list[str]] | None = Field(
        None,
        exclude_if=unasked,
        examples=[{"chinese": ["炮二平五", "马８进７"]}],
        description="With `notations` in the request: each of `moves` in each notation "
        "asked for, by name (absent otherwise).",
    )


class LevelInfo(BaseModel):
    """One rung of the ladder for one variant: its search, its choice rule, its measured
    rating (logistic Elo, random = 0; None until calibrated) and time per move."""

    level: int
    nodes: int
    hash_mb: int
    variety: Variety | None = Field(
        None, description="How the level chooses among the engine's lines (None: best move)."
    )
    rating: Rating | None = None
    seconds_per_move: float | None = Field(
        None, description="Median search time per move in the calibration games."
    )
    expected_seconds: float = Field(
        description="How long a move is expected to take: the level's median wall time a "
        "move as served, measured on this machine (`ladder levels --measure`), else "
        "`seconds_per_move`, else the level's nodes at an assumed engine speed "
        "(`expected_source` says which). A guide, not a promise: a loaded machine is "
        "slower, a book move instant."
    )
    expected_source: Literal["measured", "calibrated", "estimated"] = Field(
        description="Where `expected_seconds` comes from."
    )
    human_reference: dict[str, Any] | None = Field(
        None,
        description="On grandmaster positions: the level's share of the master's move and "
        "its mean loss against a reference search, beside the masters' own mean loss (an "
        "anchor, not a human Elo; None where the reference cannot judge the level).",
    )


class EloRange(BaseModel):
    """The ratings a move request may ask for in one variant: level 1's to level 8's."""

    low: float
    high: float


class LevelsResponse(BaseModel):
    """All levels, per variant id: the ladder's curve (each level's settings and measured
    rating), and the Elo span a move request may ask for (None until every level of the
    variant is measured, strictly increasing)."""

    levels: dict[str, list[LevelInfo]]
    elo_range: dict[str, EloRange | None]
    levels_version: str = Field(
        "", description="The levels file's version (as in every move answer)."
    )


class VariantInfo(BaseModel):
    """A rule set the service plays."""

    id: VariantId
    start_fen: str


class Limits(BaseModel):
    """The bounds of a game this service takes, so that a client can end or split a
    game before a request is refused."""

    max_moves: int = Field(
        description="The most moves a request's `moves` may hold (`/v1/move`, "
        "`/v1/position`, `/v1/analysis`): the rules checker's bound."
    )
    analysis_max_plies: int = Field(
        description="The most plies one `/v1/analysis` request analyses (`moves` longer "
        "than this are refused); a longer game is analysed in parts with `from_ply`."
    )


class VariantsResponse(BaseModel):
    """The rule sets the service plays, and the bounds of a game it takes."""

    variants: list[VariantInfo]
    limits: Limits


class Health(BaseModel):
    """Liveness and load."""

    status: Literal["ok", "degraded"] = Field(
        description="`ok` when every engine is live, `degraded` when some are not."
    )
    ready: bool = Field(
        description="At least one engine is live and the service is not stopping (what "
        "`/readyz` answers)."
    )
    draining: bool = Field(
        False, description="The service is stopping (SIGTERM): finishing its requests."
    )
    engines: int
    engines_alive: int = Field(description="Engine processes running.")
    engines_live: int = Field(
        description="Engines running that answered their last search or readiness check "
        "(idle engines are checked every few seconds; a frozen one is replaced)."
    )
    engines_busy: int
    queue_depth: int
    max_queue: int


class ErrorDetail(BaseModel):
    """Why a request failed."""

    code: ErrorCode = Field(description="Stable machine-readable name.", examples=["illegal_move"])
    message: str = Field(
        examples=["moves[1] (ply 2): illegal move 'h3e3': no piece on h3"],
    )
    field: str | None = Field(
        None, description="The offending field, e.g. `moves[3]`.", examples=["moves[1]"]
    )
    ply: int | None = Field(
        None, description="The offending ply, 1 = first of `moves`.", examples=[2]
    )
    retry_after: int | None = Field(
        None, description="Seconds to wait before trying again (also the Retry-After header)."
    )
    outcome: OutcomeInfo | None = Field(None, description="How the game ended (`game_over`).")


class ErrorResponse(BaseModel):
    """Every non-2xx answer has this body."""

    error: ErrorDetail
