"""The treeplex's strategies and best responses against brute force over every pure strategy of Kuhn poker."""

import itertools

import numpy as np
import pytest

from gamelp.errors import GameFileError
from gamelp.treeplex import Treeplex


def pure_strategies(own):
    """Every pure strategy (one action per decision point, reached or not) in sequence form."""
    for pick in itertools.product(*(own.actions[j] for j in own.decision_points)):
        yield own.from_behavioural({j: {a: 1.0} for j, a in zip(own.decision_points, pick)})


@pytest.mark.parametrize("player", [1, 2])
def test_best_response_against_every_pure_strategy(kuhn, player):
    own = kuhn.player(player)
    pures = np.array(list(pure_strategies(own)))
    assert len(pures) == 2**own.num_decision_points
    rng = np.random.default_rng(11)
    for _ in range(20):
        utility = rng.normal(size=own.num_sequences)
        value, x = own.best_response(utility)
        assert value == pytest.approx((pures @ utility).max(), abs=1e-12)
        assert utility @ x == pytest.approx(value, abs=1e-12)
        assert own.infeasibility(x) == 0.0 and set(np.unique(x)) <= {0.0, 1.0}


@pytest.mark.parametrize("player", [1, 2])
def test_sequence_form_of_behavioural_strategies(kuhn, player):
    own = kuhn.player(player)
    rng = np.random.default_rng(5)
    assert own.decision_point_of[0] == -1
    assert np.all(own.decision_point_of[1:] >= 0)
    for j, (s, e) in enumerate(zip(own.starts, own.ends)):
        assert np.all(own.decision_point_of[s:e] == j)
    for _ in range(10):
        behaviour = {
            j: dict(zip(own.actions[j], rng.dirichlet(np.ones(len(own.actions[j]))))) for j in own.decision_points
        }
        x = own.from_behavioural(behaviour)
        assert own.F @ x == pytest.approx(own.f, abs=1e-12) and own.infeasibility(x) < 1e-12
        back = own.to_behavioural(x)
        for j in own.decision_points:
            assert list(back[j].values()) == pytest.approx(list(behaviour[j].values()), abs=1e-12)
        # Each sequence's weight is the product of the behaviour along its path.
        for k, seq in enumerate(own.sequences[1:], start=1):
            j = own.decision_point_of[k]
            assert x[k] == pytest.approx(x[own.parents[j]] * behaviour[seq[0]][seq[1]], abs=1e-15)


def test_unreached_points_read_back_uniform(kuhn):
    own = kuhn.pl1
    always_bet = own.from_behavioural({j: {"b": 1.0} for j in own.decision_points if "b" in own.actions[j]})
    back = own.to_behavioural(always_bet)
    unreached = [j for k, j in enumerate(own.decision_points) if always_bet[own.parents[k]] == 0]
    assert unreached
    for j in unreached:
        assert list(back[j].values()) == [1 / len(own.actions[j])] * len(own.actions[j])


def test_a_point_reached_with_probability_up_to_1e_12_reads_back_uniform(kuhn):
    own = kuhn.pl1
    point, first = own.decision_points[-1], own.starts[-1]
    for reach, expected in ((1e-12, [0.5, 0.5]), (2e-12, [1.0, 0.0])):
        x = np.zeros(own.num_sequences)
        x[0], x[first] = 1.0, reach
        assert list(own.to_behavioural(x)[point].values()) == expected


def test_kuhn_treeplexes_by_hand(kuhn):
    """Player 1 observes only the deal (the root), then decides at its 3 cards and, after checking into a bet, at 3
    more points; player 2 observes the deal (the root) and then player 1's move at each card (3 more observation
    points) before its 6 decisions.  Two edges deep either way.  Sequence 0, the empty one, has no decision point."""
    for tp, observed in ((kuhn.pl1, 1), (kuhn.pl2, 4)):
        assert tp._summary() == {
            "player": tp.player,
            "decision_points": 6,
            "sequences": 13,
            "observation_points": observed,
            "depth": 2,
        }
        assert tp.decision_point_of.tolist() == [-1, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]


def test_infeasibility_is_the_largest_violation(kuhn):
    own = kuhn.pl1
    x = own.uniform_strategy()
    assert own.infeasibility(x) == pytest.approx(0.0, abs=1e-15)
    y = x.copy()
    y[1] += 0.1  # the first point's row sums to 1.1
    assert own.infeasibility(y) == pytest.approx(0.1, abs=1e-12)
    z = x.copy()
    last = own.num_sequences - 1
    z[last] -= 0.7  # 0.25 - 0.7 = -0.45 < 0, and its point's row is off by 0.7
    assert own.infeasibility(z) == pytest.approx(0.7, abs=1e-12)
    with pytest.raises(ValueError, match=f"expected {own.num_sequences} sequence weights"):
        own.infeasibility(x[:-1])


def node(node_id, actions, parent=None):
    return {"id": node_id, "type": "decision", "actions": actions, "parent_edge": parent, "parent_sequence": parent}


def test_parent_edge_faults():
    with pytest.raises(GameFileError, match=r"form a cycle: (a -> b -> a|b -> a -> b)"):
        Treeplex.from_nodes([node("r", ["x"]), node("a", ["x"], ["b", "x"]), node("b", ["x"], ["a", "x"])], 1)
    for bad in (["r"], ["r", "x", "y"], ["r", 1], "rx"):
        with pytest.raises(GameFileError, match="expected a pair"):
            Treeplex.from_nodes([node("r", ["x"]), node("a", ["y"], bad)], 1)
    ok = Treeplex.from_nodes([node("r", ["x"]), node("a", ["y"], ("r", "x"))], 1)
    assert ok.parents.tolist() == [0, 1] and ok.labels == ("∅", "r:x", "a:y")


def test_graph_is_the_points_as_a_networkx_tree(leduc):
    """The graph built on first use has one node per point and one edge per parent edge; its longest path is the
    depth the summary counts without it."""
    import networkx as nx

    for own in (leduc.pl1, leduc.pl2):
        graph = own.graph
        assert list(graph.nodes) == list(own.points) and nx.is_arborescence(graph)
        for position, (node_id, point) in enumerate(own.points.items()):
            assert graph.nodes[node_id] == {"type": point.type, "outcomes": point.outcomes, "position": position}
            parents = [(u, graph.edges[u, node_id]["label"]) for u in graph.predecessors(node_id)]
            assert parents == ([] if point.parent_edge is None else [point.parent_edge])
        assert own._summary()["depth"] == nx.dag_longest_path_length(graph) > 2
