"""Search, evaluations, players and play_game of the mini Magic game."""

import numpy as np
import pytest

from gamelp.errors import GamelpError
from gamelp.games.mtg import forest as forest_module
from gamelp.games.mtg.deck import DEVIL, MOUNTAIN, Deck, analysed_decks
from gamelp.games.mtg.engine import (
    ATTACK,
    BLOCK,
    DISCARD,
    HAND_C,
    HAND_M,
    LIFE,
    MAIN,
    PAY,
    PLAYER_BASE,
    RESPOND,
    TURN,
    Game,
    Rules,
    decider,
    is_over,
    winner,
)
from gamelp.games.mtg.evaluation import layered_evaluation, layered_layers, life_evaluation
from gamelp.games.mtg.forest import Forest, cache_name, collect_positions, features, train_forest
from gamelp.games.mtg.match import PLAYER_KINDS, GameResult, GameSettings, _perfect_verdict, play_game, play_match
from gamelp.games.mtg.players import (
    AggressivePlayer,
    DefensivePlayer,
    MtgError,
    PerfectPlayer,
    Table,
    consistent_decks,
    cutoff_tier,
    determinize,
    make_player,
)
from gamelp.games.mtg.search import CapReached, Searcher, minimax

B0, B1 = PLAYER_BASE


@pytest.fixture(autouse=True)
def fresh_machine(tmp_path, monkeypatch):
    """No cached forest, and training one lazily fails the test: it takes minutes on a fresh machine.

    Tests that need a forest train a tiny one themselves (``collect_positions``
    imported above is the real function; only the lazy path is refused).
    """
    monkeypatch.setenv("GAMELP_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setattr(forest_module, "_FORESTS", {})

    def refuse(*args, **kwargs):
        raise AssertionError("a test trained a random forest lazily; train a tiny one or use 'life'")

    monkeypatch.setattr(forest_module, "collect_positions", refuse)


def small_games(count, seed=0):
    """Tiny deals (5-card libraries, 2-card hands, 6 life) that plain minimax can finish."""
    rng = np.random.default_rng(seed)
    for i in range(count):
        game = Game([rng.integers(0, 3, size=5) for _ in range(2)], Rules(opening_hand=2, starting_life=6))
        yield game, game.opening_state(first=i % 2)


def test_alphabeta_and_table_agree_with_plain_minimax():
    checked = 0
    for game, state in small_games(8, seed=0):
        if state[B0 + LIFE] and not is_over(state):
            exact = minimax(game, state)
            assert Searcher(game, None, threshold=0, cap=None).value(state) == exact
            assert Searcher(game, None, threshold=0, cap=None, use_tt=False).value(state) == exact
            graded = minimax(game, state, layered_evaluation, threshold=3)
            assert Searcher(game, layered_evaluation, 3, cap=None, graded=True).value(state) == graded
            signed = minimax(game, state, lambda g, s: float(np.sign(layered_evaluation(g, s))), 3)
            assert Searcher(game, layered_evaluation, threshold=3, cap=None).value(state) == signed
            checked += 1
    assert checked >= 6


def test_table_saves_work():
    game, state = Game.deal("8C28L", "4C20L", np.random.default_rng(5), first=0)
    with_table = Searcher(game, life_evaluation, threshold=12, cap=None)
    without = Searcher(game, life_evaluation, threshold=12, cap=None, use_tt=False)
    assert with_table.value(state) == without.value(state)
    assert with_table.nodes < without.nodes


def forced_win_position():
    """Player 0 (20 life, one card left in its library) has a ready devil, one open land
    and a bolt; player 1 (7 life) has a ready devil. Only bolting the blocker, then
    attacking this turn and next, wins before player 0 decks out."""
    game = Game(([DEVIL], [DEVIL] * 10))
    state = game.position(active=0, players=({"lands": 1, "mana": 1, "hand_l": 1, "ready": 1}, {"life": 7, "ready": 1}))
    return game, state


def test_forced_win_in_two_turns_is_found():
    game, state = forced_win_position()
    searcher = Searcher(game, None, threshold=0, cap=None)
    assert searcher.move_values(state) == {"D": 1.0, "L": -1.0, "N": -1.0}
    assert searcher.best_move(state) == ("D", 1.0)
    assert minimax(game, state) == 1.0
    while not is_over(state):
        state = game.step(state, searcher.best_move(state)[0])
    assert winner(state) == 0 and state[TURN] == 4


def test_cap_stops_the_search():
    game, state = Game.deal("8C28L", "8C28L", np.random.default_rng(1), first=0)
    searcher = Searcher(game, None, threshold=0, cap=50)
    with pytest.raises(CapReached):
        searcher.value(state)
    assert searcher.leaves == 51
    result = play_game("8C28L", "8C28L", seed=1, settings=GameSettings(evaluation="life", eval_cap=50))
    assert result.winner is None and result.capped and result.evaluations > 50


def test_play_game_is_deterministic():
    kwargs = dict(settings=GameSettings(evaluation="layered", eval_cap=20_000))
    for seed in (0, 1, 2):
        first = play_game("8C28L", "4C32L", seed=seed, **kwargs)
        assert first == play_game(Deck(8, 28), "4C32L", seed=seed, **kwargs)
        assert isinstance(first, GameResult) and first.nodes > 0
    mixed = [play_game("8C28L", "4C32L", "random", "defensive", seed=s) for s in range(3)]
    assert mixed == [play_game("8C28L", "4C32L", "random", "defensive", seed=s) for s in range(3)]
    assert set(PLAYER_KINDS) == {"perfect", "imperfect", "aggressive", "defensive", "defensive-hand", "random"}


def test_play_game_results_and_log():
    lines = []
    result = play_game(
        "8C28L", "0C40L", seed=3, first=1, settings=GameSettings(evaluation="life"), verbose=True, log=lines.append
    )
    assert result.first == 1 and result.winner in (0, 1, None) and result.turns >= 2
    assert lines[0].startswith("turn 1 P2") and "cut-off" in lines[-1]


def test_bad_settings_raise_a_gamelp_error_naming_the_value_and_the_choices():
    with pytest.raises(MtgError, match=r"unknown player kind 'chess' for player2; expected one of perfect, .*random"):
        play_game("8C28L", "0C40L", player2="chess")
    with pytest.raises(GamelpError, match=r"unknown evaluation 'oracle'; expected one of forest, layered, life"):
        play_game("8C28L", "0C40L", "random", "random", settings=GameSettings(evaluation="oracle"))
    with pytest.raises(GamelpError, match="first must be 0 or 1, got 2"):
        play_game("8C28L", "0C40L", "random", "random", first=2)
    with pytest.raises(GamelpError, match=r"unknown player kind 'chess'; expected one of perfect, imperfect"):
        make_player("chess", np.random.default_rng(0))


def test_play_match_alternates_first():
    results = play_match("8C28L", "4C20L", 4, seed=9, player1="aggressive", player2="defensive")
    assert [r.first for r in results] == [0, 1, 0, 1]
    assert all(r.winner in (0, 1) and r.nodes == 0 for r in results)


def test_verification_flags_a_wrong_verdict():
    """Player 0 leads on life (12 to 3) but player 1 holds four bolts and four open lands
    on its own turn: the life evaluation says player 0, the full search player 1."""
    game = Game(([MOUNTAIN] * 10, [MOUNTAIN] * 10))
    state = game.position(active=1, players=({"life": 12}, {"life": 3, "hand_l": 4, "lands": 4, "mana": 4}))
    result = _perfect_verdict(game, state, PerfectPlayer("life"), 12, 10_000, "life", True, 0, False, print)
    assert result.winner == 0 and result.verified and result.mismatch
    sound = game.position(active=1, players=({"life": 12, "hand_l": 1, "lands": 1}, {"life": 3}))
    checked = _perfect_verdict(game, sound, PerfectPlayer("life"), 12, 10_000, "life", True, 0, False, print)
    assert checked.winner == 0 and checked.verified and not checked.mismatch


def test_verify_in_play_game():
    results = [
        play_game("8C28L", "4C32L", seed=s, settings=GameSettings(evaluation="life", verify=True, eval_cap=50_000))
        for s in range(4)
    ]
    assert any(r.verified for r in results)
    assert all(not r.mismatch or r.verified for r in results)


# ---- evaluations --------------------------------------------------------------
def test_layered_score_is_lexicographic_and_antisymmetric():
    game = Game(([MOUNTAIN] * 30, [MOUNTAIN] * 30))
    # one more creature beats any life lead
    creatures_ahead = game.position(players=({"life": 1, "ready": 1}, {"life": 20}))
    life_ahead = game.position(players=({"life": 20, "hand_c": 7, "lands": 9}, {"life": 1}))
    assert layered_layers(game, creatures_ahead)[2] == 1
    assert layered_evaluation(game, creatures_ahead) > layered_evaluation(game, life_ahead) > 0
    # lethal burn (Wins) beats a creature lead
    burn = game.position(players=({"life": 2, "hand_l": 1, "lands": 1}, {"life": 3, "ready": 4}))
    assert layered_layers(game, burn)[:3] == (0, 1, -4) and layered_evaluation(game, burn) > 0
    # a decked-out player (Limits) is worst of all
    decked = game.position(players=({"life": 20, "ready": 5, "lib": 30}, {"life": 1}))
    assert layered_evaluation(game, decked) < 0
    mirror = game.position(players=({"life": 20}, {"life": 1, "ready": 1}))
    assert layered_evaluation(game, mirror) == -layered_evaluation(game, creatures_ahead)
    assert life_evaluation(game, mirror) == -life_evaluation(game, creatures_ahead) == 19 / 41


def test_cached_forest_is_used_by_play_game(tmp_path, monkeypatch):
    data = collect_positions(10, thresholds=(12,), seed=4, label_cap=20_000)
    model = train_forest(data.X[12], data.y[12], trees=9, seed=0)
    game, state = Game.deal("8C28L", "4C20L", np.random.default_rng(0))
    forest = Forest.from_sklearn(model, 12)
    assert forest(game, state) == (1.0 if model.predict([features(game, state)])[0] == 1 else -1.0)
    cache = tmp_path / "cache"
    (cache / "mtg").mkdir(parents=True, mode=0o700)
    cache.chmod(0o700)
    for t in forest_module.THRESHOLDS:
        Forest.from_sklearn(model, t).save(cache / "mtg" / cache_name(t, 1000, 0, 9))
    monkeypatch.setenv("GAMELP_CACHE", str(cache))
    result = play_game("8C28L", "4C32L", seed=2, settings=GameSettings(evaluation="forest", eval_cap=20_000))
    assert result.evaluations > 0 and result.winner in (0, 1)


# ---- players --------------------------------------------------------------------
def crafted(phase=MAIN, active=0, me=None, opponent=None, **fields):
    game = Game(([MOUNTAIN] * 20, [MOUNTAIN] * 20))
    players = [{}, {}]
    players[active if phase in (MAIN, ATTACK, DISCARD) else 1 - active] = me or {}
    players[1 - active if phase in (MAIN, ATTACK, DISCARD) else active] = opponent or {}
    state = game.position(active=active, phase=phase, players=tuple(players), **fields)
    return game, state


def choose(player, game, state):
    return player.choose(game, state, game.legal_moves(state), Table((Deck(8, 28), Deck(8, 28))))


def test_aggressive_player():
    aggressive = AggressivePlayer()
    game, state = crafted(me={"hand_m": 1, "hand_l": 1, "hand_c": 1, "lands": 1, "mana": 1}, opponent={"ready": 1})
    assert choose(aggressive, game, state) == "M"
    assert choose(aggressive, game, game.step(state, "M")) == "L"  # bolts the player, not the creature
    game, state = crafted(phase=PAY, me={"life": 5})
    assert choose(aggressive, game, state) == "P"
    game, state = crafted(phase=ATTACK, me={"ready": 2}, opponent={"ready": 3})
    assert choose(aggressive, game, state) == "A"
    game, state = crafted(phase=BLOCK, me={"ready": 1}, attackers=1)
    assert choose(aggressive, game, state) == "N"
    game, state = crafted(phase=RESPOND, me={"hand_l": 1, "mana": 1}, opponent={"sick": 1}, attackers=1)
    assert choose(aggressive, game, state) == "L"


def test_defensive_player():
    defensive = DefensivePlayer()
    game, state = crafted(me={"hand_l": 2, "hand_c": 1, "lands": 2, "mana": 2}, opponent={"ready": 1})
    assert choose(defensive, game, state) == "D"
    game, state = crafted(me={"hand_l": 2, "hand_c": 1, "lands": 2, "mana": 2}, opponent={"life": 9})
    assert choose(defensive, game, state) == "S"  # 6 damage is not lethal: no bolt to the face
    game, state = crafted(me={"hand_l": 2, "hand_c": 1, "lands": 2, "mana": 2}, opponent={"life": 6})
    assert choose(defensive, game, state) == "L"  # lethal
    game, state = crafted(me={"hand_l": 3, "hand_c": 1, "lands": 1, "mana": 1}, opponent={"life": 9})
    assert choose(defensive, game, state) == "S"  # 9 damage in hand but one open land: not lethal now
    assert choose(DefensivePlayer(lethal_from="hand"), game, state) == "L"  # lethal over this and later turns
    game, state = crafted(me={"hand_l": 3, "lands": 3, "mana": 3}, opponent={"life": 9})
    assert choose(defensive, game, state) == "L"  # three bolts, three open lands
    game, state = crafted(me={"hand_l": 3, "lands": 1, "mana": 1}, opponent={"life": 10})
    assert choose(DefensivePlayer(lethal_from="hand"), game, state) == "N"  # 9 damage: keep them for creatures
    game, state = crafted(phase=RESPOND, me={"hand_l": 7, "mana": 1}, opponent={"life": 20})
    assert choose(defensive, game, state) == "N"  # 21 damage in hand, one open land
    assert choose(DefensivePlayer(lethal_from="hand"), game, state) == "L"
    game, state = crafted(phase=RESPOND, me={"hand_l": 1, "mana": 1}, opponent={"life": 3})
    assert choose(defensive, game, state) == "L"
    game, state = crafted(phase=RESPOND, me={"hand_l": 1, "mana": 1}, opponent={"sick": 1}, attackers=1)
    assert choose(defensive, game, state) == "T"  # the attacker first
    game, state = crafted(phase=PAY, me={"life": 10})
    assert choose(defensive, game, state) == "P"
    game, state = crafted(phase=PAY, me={"life": 10, "hand_l": 1})
    assert choose(defensive, game, state) == "N"
    game, state = crafted(phase=ATTACK, me={"ready": 2}, opponent={"ready": 2})
    assert choose(defensive, game, state) == "N"
    game, state = crafted(phase=ATTACK, me={"ready": 2}, opponent={"ready": 1})
    assert choose(defensive, game, state) == "A"
    game, state = crafted(phase=BLOCK, me={"ready": 1}, attackers=1)
    assert choose(defensive, game, state) == "B"
    game, state = crafted(phase=DISCARD, me={"hand_l": 5, "hand_c": 3})
    assert choose(defensive, game, state) == "XL"


@pytest.mark.parametrize("heuristic", ["aggressive", "defensive-hand"])
def test_heuristics_beat_random_players(heuristic):
    """Over 150 games on random thesis decks (each side first half the time) a heuristic beats a
    random mover clearly. The thesis's defensive player (``defensive``: bolts the player only when
    the bolts it can cast now are lethal) hoards its bolts and wins about half (71 of 150)."""
    decks = analysed_decks()
    rng = np.random.default_rng(11)
    wins = 0
    for g in range(150):
        d1, d2 = (decks[i] for i in rng.integers(len(decks), size=2))
        result = play_game(d1, d2, heuristic, "random", seed=int(rng.integers(2**62)), first=g % 2)
        wins += result.winner == 0
    assert wins / 150 > 0.62


def test_defensive_player_fires_a_lethal_hand_of_bolts():
    """Creature-less decks: the defensive player's only damage is bolts. Counting every bolt in hand
    it fires them once the hand can kill; counting only castable ones it hoards them (the hand limit
    discards some) until seven lands are open at 20 life."""
    wins = {
        kind: sum(play_game("0C40L", "0C40L", kind, "random", seed=s, first=s % 2).winner == 0 for s in range(30))
        for kind in ("defensive-hand", "defensive")
    }
    assert wins["defensive-hand"] >= 18 and wins["defensive"] <= 8  # 22 and 3 of 30


def test_cutoff_tiers():
    game = Game(([MOUNTAIN], [MOUNTAIN]))
    tiers = [
        cutoff_tier(game.position(players=({"life": life}, {"life": 20})), 12) for life in (20, 13, 12, 9, 8, 5, 4, 1)
    ]
    assert tiers == [12, 12, 8, 8, 4, 4, 0, 0]


def test_determinisation_respects_what_was_shown():
    # having shown 5 devils, player 1 holds one of the 8-creature decks
    assert {d.creatures for d in consistent_decks([3, 9, 5], _candidates())} == {8}
    beyond = consistent_decks([0, 0, 9], [Deck(8, 0)])  # no candidate fits: any deck that does
    assert min(d.creatures for d in beyond) == 9 and Deck(9, 51) in beyond and Deck(60, 0) in beyond
    rng = np.random.default_rng(0)
    game, state = Game.deal("8C28L", "8C20L", rng, first=0)
    table = Table((Deck(8, 28), Deck(8, 20)))
    players = (AggressivePlayer(), DefensivePlayer())
    while state[TURN] < 8 and not is_over(state):
        mover = decider(state)
        move = choose(players[mover], game, state)
        table.record(mover, move)
        state = game.step(state, move)
    assert sum(table.shown[1]) > 3 and not is_over(state)
    for _ in range(5):
        sample, s = determinize(game, state, 0, table, rng, _candidates())
        assert s[B0 + HAND_M : B0 + HAND_C + 1] == state[B0 + HAND_M : B0 + HAND_C + 1]
        assert sample.library_counts(s, 0) == game.library_counts(state, 0)
        hand1 = s[B1 + HAND_M : B1 + HAND_C + 1]
        assert sum(hand1) == sum(state[B1 + HAND_M : B1 + HAND_C + 1])
        assert sample.library_size(s, 1) == game.library_size(state, 1)
        total = np.array(hand1) + np.array(sample.library_counts(s, 1)) + np.array(table.shown[1])
        assert total.sum() == 60 and total[2] in (0, 4, 8)


def _candidates():
    from gamelp.games.mtg.deck import thesis_decks

    return thesis_decks()


def test_imperfect_player_plays_a_game():
    settings = GameSettings(evaluation="life", eval_cap=2_000, imperfect_samples=2)
    result = play_game("8C28L", "4C20L", "imperfect", "aggressive", seed=1, settings=settings)
    assert result.winner in (0, 1) and result.nodes > 0
    again = play_game("8C28L", "4C20L", "imperfect", "aggressive", seed=1, settings=settings)
    assert again == result


def test_imperfect_player_plays_the_move_that_wins_most_samples():
    """Bolting the opponent at 3 life wins every sample; passing loses them all (bolts only on one's
    own turn, and an empty library decks the player at its next draw): the rule must pick the move
    with the most wins."""
    from gamelp.games.mtg.players import ImperfectPlayer

    sorcery = Rules(instant_bolts=False)
    game = Game(([], [MOUNTAIN] * 20), sorcery)
    state = game.position(players=({"hand_l": 1, "lands": 1, "mana": 1}, {"life": 3, "hand_m": 3, "lib": 0}))
    moves = game.legal_moves(state)
    assert moves == ("L", "N")
    table = Table((Deck(0, 28), Deck(0, 40)))
    for seat_moves in (moves, moves[::-1]):  # the best move first and last
        player = ImperfectPlayer(np.random.default_rng(0), evaluation="life", life_threshold=0, samples=3)
        assert player.choose(game, state, seat_moves, table) == "L"
    # player 1 (the minimiser) is judged by its own wins too
    mirrored = Game(([MOUNTAIN] * 20, []), sorcery)
    state = mirrored.position(active=1, players=({"life": 3, "hand_m": 3}, {"hand_l": 1, "lands": 1, "mana": 1}))
    player = ImperfectPlayer(np.random.default_rng(0), evaluation="life", life_threshold=0, samples=3)
    assert player.choose(mirrored, state, ("N", "L"), table) == "L"
