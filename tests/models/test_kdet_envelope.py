"""The Lagrangian envelope of the k-sweep against exact values: face enumeration and exact sweeps."""

import itertools
import json
import time

import numpy as np
import pytest

from gamelp.cli import main
from gamelp.game import SequenceFormGame
from gamelp.games import poker
from gamelp.models.determinism import determinism, solve_kdet
from gamelp.models.kdet_envelope import Envelope, EnvelopePoint, _upper_hull, lagrangian_envelope
from gamelp.models.kdet_search import UNDECIDED, FaceLP, KdetSearch, search_sweep
from gamelp.units import normalised


def exact_by_faces(game, player):
    """V(k) by enumeration: the best LP over every face that fixes k or more points' actions (or leaves them free)."""
    lp = FaceLP(game, player)
    own = game.player(player)
    best = np.full(own.num_decision_points + 1, -np.inf)
    options = [range(UNDECIDED, own.ends[j] - own.starts[j]) for j in range(own.num_decision_points)]
    for choice in itertools.product(*options):
        choice = np.array(choice)
        fixed = int((choice != UNDECIDED).sum())
        best[fixed] = max(best[fixed], lp.solve(choice)[0])
    return np.maximum.accumulate(best[::-1])[::-1]  # a face fixing more points is feasible for fewer


def concave_hull(values):
    """The smallest concave function above the points (k, values[k])."""
    k = np.arange(values.size)
    hull = values.copy()
    for i, j in itertools.combinations(k, 2):
        inside = k[i : j + 1]
        hull[inside] = np.maximum(hull[inside], values[i] + (values[j] - values[i]) * (inside - i) / (j - i))
    return hull


def check_envelope(game, player, exact, envelope, tol=1e-7):
    bounds, incumbents = envelope.bounds(), envelope.incumbents()
    # the Nash LP's line, then one line per Lagrangian MIP; the deterministic ILP is the one solve without a line
    assert envelope.solves == len(envelope.lines) + 1
    assert envelope.lines[0] == (0.0, pytest.approx(exact[0], abs=1e-9))
    assert np.all(bounds >= exact - tol)
    assert np.all(incumbents <= exact + tol)
    own = game.player(player)
    for point in envelope.points:  # every strategy found guarantees its value and has its determinism
        x = point.x
        assert game.guaranteed_value(player, x) == pytest.approx(point.value, abs=1e-12)
        assert determinism(own, x) == point.determinism
    return bounds, incumbents


@pytest.mark.parametrize("player", [1, 2])
def test_kuhn_envelope_is_the_concave_hull_of_the_enumerated_sweep(kuhn, player):
    exact = exact_by_faces(kuhn, player)
    total = kuhn.player(player).num_decision_points
    assert exact == pytest.approx([solve_kdet(kuhn, player, k, mip_gap=1e-9).value for k in range(total + 1)], abs=1e-8)
    bounds, incumbents = check_envelope(kuhn, player, exact, lagrangian_envelope(kuhn, player))
    assert bounds == pytest.approx(concave_hull(exact), abs=1e-8)  # every L(lam) solved exactly
    assert incumbents[[0, total]] == pytest.approx(exact[[0, total]], abs=1e-9)


def test_no_multiplier_is_solved_twice_and_every_lagrangian_one_is_positive():
    game = SequenceFormGame.from_dict(poker.kuhn(4), "kuhn4")
    for player in (1, 2):
        lams = [lam for lam, _ in lagrangian_envelope(game, player).lines]
        assert lams[0] == 0.0 and min(lams[1:]) > 0 and len(set(lams)) == len(lams)


@pytest.mark.parametrize(("tol", "solves"), [(7 / 24 - 0.01, 4), (7 / 24 + 0.01, 3)])
def test_a_point_splits_its_edge_only_more_than_tol_above_it(tol, solves):
    """Four-card Kuhn, player 2: Nash keeps 1/24 at 6 points, the ILP -1/12 at 8; the first multiplier (the chord's
    slope, 1/16) finds V(7) = 1/36, above the chord by 7/144, 7/24 of the payoff range (1/6)."""
    game = SequenceFormGame.from_dict(poker.kuhn(4), "kuhn4")
    envelope = lagrangian_envelope(game, 2, tol=tol)
    assert envelope.solves == solves
    assert [p.determinism for p in envelope.points[:3]] == [6, 8, 7]
    assert [p.value for p in envelope.points[:3]] == pytest.approx([1 / 24, -1 / 12, 1 / 36], abs=1e-9)
    # split: the next edge runs from V(7) (the Nash point is less than tol better) to the ILP's point
    assert [lam for lam, _ in envelope.lines] == pytest.approx([0, 1 / 16, 1 / 9][: solves - 1], abs=1e-9)


@pytest.mark.parametrize(("tol", "solves"), [(0.24, 3), (0.26, 2)])
def test_a_point_at_most_tol_better_than_a_more_deterministic_one_is_no_corner(tol, solves):
    """Four-card Kuhn, player 1: Nash keeps -1/24 at 5 points, the ILP -1/12 at 8: 1/4 of the payoff range apart."""
    game = SequenceFormGame.from_dict(poker.kuhn(4), "kuhn4")
    assert lagrangian_envelope(game, 1, tol=tol).solves == solves


def test_the_deterministic_end_is_solved_to_optimality():
    """Four-rank Leduc, player 2: the deterministic ILP's value (-1/6) is the incumbent at k = all points."""
    game = SequenceFormGame.from_dict(poker.leduc(ranks=4, suits=1, raise_sizes=(1, 2), max_raises=1), "leduc_4x1")
    total = game.player(2).num_decision_points
    exact = solve_kdet(game, 2, total, mip_gap=1e-9).value
    assert exact == pytest.approx(-1 / 6, abs=1e-9)
    assert lagrangian_envelope(game, 2, max_solves=2).incumbents()[total] == pytest.approx(exact, abs=1e-9)


def test_an_envelope_without_lines_bounds_nothing_and_shows_itself_in_short(kuhn):
    assert Envelope(1, 3, [], [], 0, 0.0).bounds().tolist() == [np.inf] * 4
    envelope = lagrangian_envelope(kuhn, 1)
    shown = repr(envelope)
    assert shown.startswith("Envelope(") and "array" not in shown and "\n" not in shown
    assert f"lines={len(envelope.lines)}" in shown and f"solves={envelope.solves}" in shown


def test_envelope_stays_above_a_sweep_that_is_not_concave():
    game = SequenceFormGame.from_dict(poker.kuhn(4), "kuhn4")
    exact = exact_by_faces(game, 1)
    bounds, _ = check_envelope(game, 1, exact, lagrangian_envelope(game, 1))
    assert bounds == pytest.approx(concave_hull(exact), abs=1e-8)
    assert np.max(bounds - exact) > 1e-3  # V is not concave here: the hull lies strictly above it at some k


@pytest.mark.parametrize("player", [1, 2])
def test_small_leduc_envelope_and_sweep_bracket_the_exact_values(player):
    game = SequenceFormGame.from_dict(poker.leduc(ranks=3, suits=1, raise_sizes=(1, 2), max_raises=1), "leduc_3x1")
    exact = search_sweep(game, player, rel_gap=0.0, abs_gap=1e-9).values
    bounds, incumbents = check_envelope(game, player, exact, lagrangian_envelope(game, player))
    assert bounds == pytest.approx(concave_hull(exact), abs=1e-8)  # every L(lam) solved exactly
    assert incumbents[[0, -1]] == pytest.approx(exact[[0, -1]], abs=1e-9)
    ends = lagrangian_envelope(game, player, max_solves=2)  # the Nash LP and the deterministic ILP, solved exactly
    assert ends.solves == 2 and len(ends.lines) == 1
    assert ends.incumbents()[[0, -1]] == pytest.approx(exact[[0, -1]], abs=1e-9)
    dive = KdetSearch(game, player)
    dive.solve_root()
    seeds = [x for x in dive.strategy if x is not None]
    seeded = lagrangian_envelope(game, player, time_limit=1.0, max_solves=3, strategies=seeds)
    _, incumbents = check_envelope(game, player, exact, seeded)
    assert seeded.solves == 3  # the budget: the Nash LP, the deterministic ILP and one Lagrangian MIP
    for x in seeds:  # a seed is never lost: the envelope's incumbents hold its value up to its determinism
        assert incumbents[determinism(game.player(player), x)] >= game.guaranteed_value(player, x) - 1e-7
    fed = search_sweep(game, player, rel_gap=0.05, abs_gap=1e-4, envelope=5.0)
    for point, value in zip(fed.points, exact):
        assert point.value - 1e-9 <= value <= point.bound + 1e-9
        assert point.within(0.05, 1e-4)


def test_cli_sweep_with_the_envelope_prints_the_exact_kuhn_curve(kuhn, capsys):
    exact = exact_by_faces(kuhn, 2)
    assert main(["kdet", "kuhn", "--player", "2", "--sweep", "--envelope", "5", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["k"] for row in rows] == list(range(exact.size))
    assert [row["value"] for row in rows] == pytest.approx(exact, abs=1e-8)
    assert all(row["bound"] >= value - 1e-9 for row, value in zip(rows, exact))
    assert main(["kdet", "kuhn", "--player", "2", "--sweep", "--method", "mip", "--envelope", "5"]) == 2
    assert "envelope: only the search takes it" in capsys.readouterr().err


def brute_force_corners(points):
    """The corners of the upper concave hull from the best value on: above every chord of points on both sides."""
    best = max(points, key=lambda p: (p.value, p.determinism))
    corners = []
    for p in points:
        if p.determinism < best.determinism:
            continue
        below = any(
            a.determinism < p.determinism < b.determinism
            and p.value
            <= a.value + (b.value - a.value) * (p.determinism - a.determinism) / (b.determinism - a.determinism)
            for a in points
            for b in points
        )
        if not below:
            corners.append(p)
    return sorted(corners, key=lambda p: p.determinism)


@pytest.mark.parametrize("seed", range(20))
def test_upper_hull_against_every_chord(seed):
    rng = np.random.default_rng(seed)
    d = rng.choice(30, size=12, replace=False)
    points = [EnvelopePoint(float(v), int(k), np.zeros(1)) for k, v in zip(d, rng.normal(size=12))]
    hull = _upper_hull(points, 0.0)
    assert [(p.determinism, p.value) for p in hull] == [(p.determinism, p.value) for p in brute_force_corners(points)]


def test_upper_hull_drops_points_on_a_chord_and_keeps_the_first_of_equals():
    first, twin = EnvelopePoint(2.0, 0, np.zeros(1)), EnvelopePoint(2.0, 0, np.zeros(1))
    on_chord, end = EnvelopePoint(1.0, 1, np.zeros(1)), EnvelopePoint(0.0, 2, np.zeros(1))
    assert [id(p) for p in _upper_hull([first, twin, on_chord, end], 0.0)] == [id(first), id(end)]
    assert _upper_hull([twin, first, on_chord, end], 0.0)[0] is twin
    slightly_worse = EnvelopePoint(2.0 - 5e-7, 0, np.zeros(1))  # within tol = 1e-6 below the first: not kept
    assert _upper_hull([first, slightly_worse, end], 1e-6)[0] is first
    slightly_better = EnvelopePoint(2.0 + 5e-7, 0, np.zeros(1))  # within tol above: the first found stays
    assert _upper_hull([first, slightly_better, end], 1e-6)[0] is first


def test_the_wall_time_is_the_calls(kuhn):
    began = time.perf_counter()
    envelope = lagrangian_envelope(kuhn, 1)
    assert 0.0 < envelope.wall_time <= time.perf_counter() - began


def test_every_mip_of_the_envelope_is_solved_to_a_1e_9_gap_and_the_envelope_is_the_players(kuhn, monkeypatch):
    """The lines are bounds of L(lam) and the ends exact only as far as the MIPs are closed: all are asked for 1e-9."""
    from gamelp.model import Model

    solve, gaps = Model.solve, []

    def spy(self, *args, **options):
        if self.is_mip:
            gaps.append(options.get("mip_gap"))
        return solve(self, *args, **options)

    monkeypatch.setattr(Model, "solve", spy)
    envelope = lagrangian_envelope(kuhn, 2)
    assert envelope.player == 2 and envelope.total == kuhn.pl2.num_decision_points
    assert gaps == [1e-9] * (envelope.solves - 1)  # every solve but the Nash LP


def test_a_sweep_seeds_the_envelope_with_every_strategy_of_its_dive(kuhn, monkeypatch):
    """The envelope gets the incumbents of the root dive and the deterministic ILP, each once: a mixed one and a
    pure one at least."""
    import gamelp.models.kdet_search as kdet_search

    seen = []

    def spy(game, player, **options):
        seen.extend(options["strategies"])
        return lagrangian_envelope(game, player, **options)

    monkeypatch.setattr(kdet_search, "lagrangian_envelope", spy)
    search_sweep(kuhn, 2, envelope=5.0)
    dive = KdetSearch(normalised(kuhn)[0], 2)  # the sweep searches the game in units of its payoff range
    dive.solve_root()
    dive.solve_top()
    expected = list({id(x): x for x in dive.strategy if x is not None}.values())
    assert len(seen) == len(expected) >= 2
    assert {tuple(np.round(x, 9)) for x in seen} == {tuple(np.round(x, 9)) for x in expected}
    own = kuhn.player(2)
    assert determinism(own, seen[0]) < own.num_decision_points == max(determinism(own, x) for x in seen)


def test_every_mip_of_the_envelope_gets_its_time_limit(kuhn, monkeypatch):
    """The deterministic ILP and each Lagrangian MIP run under the time limit given; the Nash LP under none."""
    from gamelp.model import Model

    limits, solve = [], Model.solve

    def spy(self, *args, **options):
        limits.append(options.get("time_limit"))
        return solve(self, *args, **options)

    monkeypatch.setattr(Model, "solve", spy)
    envelope = lagrangian_envelope(kuhn, 2, time_limit=7.5)
    assert envelope.solves == len(limits) >= 3
    assert limits.count(7.5) == envelope.solves - 1 and limits[0] is None


def test_an_ilp_stopped_before_any_strategy_leaves_the_nash_line_alone(kuhn):
    """No time at all: the deterministic ILP finds nothing (no point at the top), so the hull has one corner and no
    edge to search; the envelope is the Nash value at every k."""
    envelope = lagrangian_envelope(kuhn, 2, time_limit=0.0)
    assert envelope.solves == 2 and len(envelope.points) == 1 and len(envelope.lines) == 1
    assert envelope.lines[0] == (0.0, pytest.approx(1 / 18, abs=1e-9))
    assert envelope.bounds() == pytest.approx([1 / 18] * 7, abs=1e-9)
