"""Which games come next: first games pair by pair, then the widest gaps."""

from __future__ import annotations

from ladder.calibration.fit import bt_games
from ladder.calibration.plan import Plan, pairings
from ladder.calibration.schedule import PairingState, first_round, next_round, widest_gaps
from ladder.match.bradley_terry import fit_ladder
from ladder.match.openings import load_openings
from tests.calibration.synthetic import games


def _states(plan: Plan) -> list[PairingState]:
    openings = load_openings("xiangqi")
    return [PairingState("xiangqi", p, openings, plan) for p in pairings("xiangqi", plan, None)]


def test_first_round_plays_pair_k_of_every_pairing_before_pair_k_plus_1() -> None:
    states = _states(Plan(games=4, skip_one_games=2))
    tasks = first_round(states)
    assert len(tasks) == 9 * 4 + 8 * 2
    first = tasks[: 2 * len(states)]
    assert {t.match_id for t in first} == {s.match().match_id for s in states}
    assert all(t.pair_no == 0 for t in first)
    assert all(s.scheduled == s.pairing.games for s in states)


def test_extending_a_pairing_continues_its_schedule() -> None:
    (state, *_) = _states(Plan(games=4))
    whole = state.match(8).tasks()
    assert state.extend(4) == whole[:4]
    assert state.extend(2) == whole[4:6]
    assert state.scheduled == 6


def test_the_widest_unsure_gaps_get_the_next_games() -> None:
    plan = Plan(games=4, skip_one_games=0, max_games=8, target_half_width=150)
    states = _states(plan)
    for s in states:
        s.scheduled = s.pairing.games
    truth = {"random": 0.0, "greedy": 150.0} | {f"L{n}": 150.0 + 300 * n for n in range(1, 9)}
    records = games(truth, 30)
    # The L7-L8 pairing has far fewer games than the others: the widest interval.
    records = [r for r in records if {r.red, r.black} != {"L7", "L8"} or r.pair_no < 2]
    fit = fit_ladder(bt_games(records), anchor="random")
    widest = widest_gaps(states, {"xiangqi": fit})
    assert widest and widest[0].state.pairing.stronger.name == "L8"
    assert [w.half_width for w in widest] == sorted((w.half_width for w in widest), reverse=True)
    tasks = next_round(states, {"xiangqi": fit}, slots=1)
    assert len(tasks) == 2 and {t.match_id for t in tasks} == {widest[0].state.match().match_id}
    # at its maximum a pairing gets no more games
    widest[0].state.scheduled = plan.max_games
    assert widest[0].state not in [w.state for w in widest_gaps(states, {"xiangqi": fit})]
    # every pairing at its maximum: nothing more to play
    for s in states:
        s.scheduled = plan.max_games
    assert next_round(states, {"xiangqi": fit}, slots=2) == []
