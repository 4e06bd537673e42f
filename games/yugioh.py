"""Simplified Yu-Gi-Oh: the game engine, the logistic win model and the ADP strategy.

Re-implements the simulation study of W. Giotta, *Approximating the Optimal
Strategy in a Two-Player Game of Incomplete Information with Application to
Yu-Gi-Oh* (UCF, 2020), sections 3-6 and appendix C.

The game
--------
Each player has a shuffled 40-card deck of identical monsters (1000 attack),
one spell type (destroys an opposing face-down card) and one trap type
(destroys an attacking monster), and draws a five-card opening hand.  Life
is counted in units of one monster's attack (the rules' 8000 life points
are ``life=8``); the studies use the paper's short setting in which a
player loses on taking damage once (``life=1``), see :class:`Rules`.  A
turn is a draw phase (a player who must draw from an empty deck loses:
decking out; whether the player moving first draws on the game's first turn
is a rule switch), main phase 1 and a battle phase (none on the game's first
turn).  The phases follow the paper's appendix code:

* main phase: summon one monster if the hand holds one and fewer than five
  monsters are on the field (always: the paper fixes this decision); use one
  face-down spell from the field, then one spell from the hand, on a random
  opposing face-down card (the player cannot tell spells from traps); set
  spells and traps from the hand face-down while fewer than five of the
  player's spell/trap zones are full.
* battle phase: with at least one monster, against an opponent with a
  monster and a face-down card the player attacks with probability
  ``PrAwMST``; with only monsters ``PrAwM``; with only face-down cards
  ``PrAwST``; against an empty field always.  The defender always springs a
  trap if it has one set: the attacking monster and the trap go to the
  graveyard.  Otherwise a monster attacking a monster destroys both (equal
  attack, no damage), and an unopposed attack is made by every monster on
  the field, each taking 1000 life points.

The studies
-----------
* Table 1 (N = 27440): player A's three attack weights run over the full
  factorial grid {0.4, 0.5, ..., 1.0}^3 (343 strategies x 80 games =
  27440; the first rows of the paper's data, its Table 5, have all weights
  1.0, and a uniform seven-level grid has standard deviation 0.2, which is
  what the paper's standard errors of 0.064 on the weights imply), player B
  plays "always attack" or "attack half the time" at random, who moves first
  is a coin flip, the first player skips its first draw, and the win of A is
  regressed (logit) on FirstA, A's hand counts and A's weights.  The
  paper's script recorded A's hand *after* A's first main phase when A moved
  first (one monster summoned, every spell and trap set: Table 5's rows with
  FirstA = 1 hold monsters only), and the five dealt cards when A moved
  second; with the dealt hand alone the three counts sum to five and are
  collinear with the intercept.  :func:`fit_table1` uses that recorded hand
  (``HAMon``, ``HASpell``, ``HATrap``); the records also keep the dealt
  counts.  With 20/10/10 decks and ``life=1`` this reproduces every
  coefficient of Table 1 to within about two standard errors.
* ADP strategy (section 5): for a hand and a turn order, the weights in
  {0.4, ..., 0.8}^3 maximising the predicted win probability.  With the
  paper's main-effects model the linear predictor is additive in the
  weights, so the maximiser is the same corner for every hand (0.4 where a
  weight's coefficient is negative, 0.8 where positive);
  ``interactions=True`` adds weight x FirstA and weight x hand terms so
  the strategy does depend on the hand.
* Table 2 (N = 960): player A plays the ADP strategy, "half" or "always",
  player B "half" or "always" (3 x 2 cells x 160 games), the first player
  draws on the first turn (as in the paper's Table 2 script), and the win of
  A is regressed on FirstA and the three strategy indicators *with* an
  intercept.  The indicators sum to one, so the model is
  over-parameterised; the paper's numbers are the minimum-norm solution
  (intercept = the sum of the three intercept-free group effects over 4)
  with pseudo-inverse standard errors, which :func:`fit_table2` reproduces
  from the identified fit.  (The paper's appendix script overwrote A's
  weights with B's, so its A-strategy effects are noise; here A plays the
  strategy it is credited with.)

Randomness: game ``i`` of a batch with seed ``s`` uses the generator seeded
by ``SeedSequence([s, i])``, so results do not depend on how many worker
processes ran the batch.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from gamelp.deps import require
from gamelp.games.errors import YugiohError
from gamelp.games.runner import process_pool

require("pandas", "the Yu-Gi-Oh simulator")  # one line naming the extra (gamelp[yugioh]), not an ImportError
import pandas as pd  # noqa: E402

MONSTER, SPELL, TRAP = 0, 1, 2
ZONES = 5

TABLE1_GRID = tuple(np.round(np.arange(0.4, 1.01, 0.1), 1))
ADP_GRID = tuple(np.round(np.arange(0.4, 0.81, 0.1), 1))
WEIGHT_NAMES = ("PrAwMST", "PrAwM", "PrAwST")
HAND_NAMES = ("HAMon", "HASpell", "HATrap")

PAPER_TABLE1 = {
    "const": (0.115, 0.127),
    "FirstA": (1.132, 0.081),
    "HAMon": (-0.284, 0.017),
    "HASpell": (0.158, 0.028),
    "HATrap": (0.806, 0.030),
    "PrAwMST": (-0.679, 0.064),
    "PrAwM": (-0.177, 0.064),
    "PrAwST": (-0.090, 0.064),
}
PAPER_TABLE1_N = 27440
PAPER_TABLE2 = {
    "const": (-0.973, 0.082),
    "FirstA": (2.691, 0.160),
    "AsHalf": (-0.334, 0.117),
    "AsAlways": (-0.397, 0.116),
    "AsADP": (-0.242, 0.115),
}
PAPER_TABLE2_N = 960


@dataclass(frozen=True)
class Rules:
    """The adjustable parts of the game.

    ``deck``: monsters, spells, traps of each deck.  The paper states 40-card
    decks but prints no split; 20/10/10 matches the hands of its Table 5
    (about half monsters).  ``life`` in units of 1000 (one monster's
    attack): the rules section's 8000 is ``life=8``; the studies use the
    paper's short setting where a player loses on taking damage once
    (``life=1``), which is what reproduces Table 1.  ``first_turn_draw``:
    whether the player moving first draws on the game's first turn (the
    paper's Table 1 script skips that draw, its Table 2 script does not).
    """

    deck: tuple[int, int, int] = (20, 10, 10)
    life: int = 1
    hand_size: int = 5
    first_turn_draw: bool = False

    def __post_init__(self):
        if len(self.deck) != 3 or min(self.deck) < 0 or sum(self.deck) < self.hand_size:
            raise YugiohError(
                f"Rules.deck = {self.deck} must be three non-negative counts "
                f"(monsters, spells, traps) of at least hand_size = "
                f"{self.hand_size} cards"
            )
        if self.life < 1 or self.hand_size < 0:
            raise YugiohError(f"Rules.life = {self.life} must be >= 1 and Rules.hand_size = {self.hand_size} >= 0")


TABLE1_RULES = Rules()
TABLE2_RULES = Rules(first_turn_draw=True)
"""The paper's Table 2 script lets the first player draw on turn one; with it
the first player wins about 80% of the games, as Table 2's FirstA = 2.691
implies (the text says "about two-thirds")."""


@dataclass(frozen=True)
class Policy:
    """One player's decision probabilities.

    ``attack_mst``, ``attack_m``, ``attack_st`` are the paper's PrAwMST,
    PrAwM and PrAwST; the main-phase probabilities are fixed at 1 in the
    paper's studies.
    """

    attack_mst: float
    attack_m: float
    attack_st: float
    use_field_spell: float = 1.0
    use_hand_spell: float = 1.0
    set_card: float = 1.0

    def __post_init__(self):
        for name, value in vars(self).items():
            if not 0.0 <= value <= 1.0:
                raise YugiohError(f"Policy.{name} = {value} is not a probability in [0, 1]")

    @classmethod
    def constant(cls, attack: float) -> Policy:
        """Attack with the same probability at all three decision points."""
        return cls(attack, attack, attack)


ALWAYS = Policy.constant(1.0)
HALF = Policy.constant(0.5)


@dataclass
class Player:
    """One side of a position: deck (drawn from the end), hand, field, life."""

    deck: list[int] = field(default_factory=list)
    hand: list[int] = field(default_factory=lambda: [0, 0, 0])
    monsters: int = 0
    spells: int = 0
    traps: int = 0
    life: int = 1

    @property
    def face_down(self) -> int:
        """Number of set spell/trap cards (the opponent sees only this count)."""
        return self.spells + self.traps


@dataclass
class Game:
    """A position: both players, whose turn it is, the turn count and the winner."""

    players: tuple[Player, Player]
    rules: Rules = TABLE1_RULES
    active: int = 0
    turn: int = 0
    winner: int | None = None
    decked_out: bool = False


def _chance(p: float, rng: np.random.Generator) -> bool:
    return p >= 1.0 or (p > 0.0 and rng.random() < p)


def _destroy_face_down(target: Player, rng: np.random.Generator) -> None:
    """Destroy a uniformly random face-down card of ``target``."""
    if rng.random() * target.face_down < target.traps:
        target.traps -= 1
    else:
        target.spells -= 1


def main_phase(me: Player, foe: Player, policy: Policy, rng: np.random.Generator) -> None:
    """Summon, use spells on the foe's face-down cards, set spells and traps."""
    if me.hand[MONSTER] and me.monsters < ZONES:
        me.hand[MONSTER] -= 1
        me.monsters += 1
    if me.spells and foe.face_down and _chance(policy.use_field_spell, rng):
        me.spells -= 1
        _destroy_face_down(foe, rng)
    if me.hand[SPELL] and foe.face_down and me.face_down < ZONES and _chance(policy.use_hand_spell, rng):
        me.hand[SPELL] -= 1
        _destroy_face_down(foe, rng)
    for _ in range(me.hand[SPELL] + me.hand[TRAP]):
        if me.face_down >= ZONES:
            break
        if _chance(policy.set_card, rng):
            held = me.hand[SPELL] + me.hand[TRAP]
            card = TRAP if rng.random() * held < me.hand[TRAP] else SPELL
            me.hand[card] -= 1
            if card == TRAP:
                me.traps += 1
            else:
                me.spells += 1


def battle_phase(me: Player, foe: Player, policy: Policy, rng: np.random.Generator) -> None:
    """One attack declaration by ``me`` at the decision point the foe's field selects."""
    if not me.monsters:
        return
    if foe.monsters:
        p = policy.attack_mst if foe.face_down else policy.attack_m
    else:
        p = policy.attack_st if foe.face_down else 1.0
    if not _chance(p, rng):
        return
    if foe.traps:
        foe.traps -= 1
        me.monsters -= 1
    elif foe.monsters:
        foe.monsters -= 1
        me.monsters -= 1
    else:
        foe.life -= me.monsters


def draw_phase(game: Game) -> bool:
    """The active player draws (not on the game's first turn unless the rules say so); False if it decks out.

    A player who must draw from an empty deck loses: ``game.winner`` is the foe and ``game.decked_out`` True.
    """
    me = game.players[game.active]
    if game.turn > 0 or game.rules.first_turn_draw:
        if not me.deck:
            game.winner, game.decked_out = 1 - game.active, True
            return False
        me.hand[me.deck.pop()] += 1
    return True


def play_turn(game: Game, policies: tuple[Policy, Policy], rng: np.random.Generator) -> None:
    """Draw, main and battle phase of the active player; sets ``game.winner`` when decided."""
    if game.winner is not None:
        raise YugiohError("play_turn called on a finished game")
    if not draw_phase(game):
        return
    me, foe = game.players[game.active], game.players[1 - game.active]
    main_phase(me, foe, policies[game.active], rng)
    if game.turn > 0:
        battle_phase(me, foe, policies[game.active], rng)
        if foe.life <= 0:
            game.winner = game.active
            return
    game.turn += 1
    game.active = 1 - game.active


def play_game(game: Game, policies: tuple[Policy, Policy], rng: np.random.Generator) -> int:
    """Play turns until someone wins; returns the winner (0 or 1)."""
    while game.winner is None:
        play_turn(game, policies, rng)
    return game.winner


def deal(rng: np.random.Generator, rules: Rules = TABLE1_RULES) -> Player:
    """A player with a shuffled deck, full life and an opening hand drawn from the deck."""
    cards = rng.permutation(np.repeat([MONSTER, SPELL, TRAP], rules.deck)).tolist()
    player = Player(deck=cards, life=rules.life)
    for _ in range(rules.hand_size):
        player.hand[player.deck.pop()] += 1
    return player


def game_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of game ``index`` in a batch with seed ``seed``."""
    return np.random.default_rng(np.random.SeedSequence([seed, index]))


def recorded_hand(dealt: list[int], first: bool) -> list[int]:
    """The hand the paper's script recorded: after A's first main phase when A moved first.

    On the game's first turn the opponent has no face-down card, so the
    paper's main phase (every spell and trap set, no first-turn draw) only
    summons one monster and sets the rest of a five-card hand.
    """
    if not first:
        return list(dealt)
    return [max(dealt[MONSTER] - 1, 0), 0, 0]


def play_recorded(seed: int, index: int, policy_a: Policy, rules: Rules = TABLE1_RULES) -> dict:
    """Play game ``index`` of batch ``seed`` for A with ``policy_a`` and return its record.

    Who moves first is a coin flip and B plays ALWAYS or HALF at random
    (the paper's Table 1 design).
    """
    rng = game_rng(seed, index)
    first = bool(rng.integers(2))
    b_always = bool(rng.integers(2))
    policy_b = ALWAYS if b_always else HALF
    a, b = deal(rng, rules), deal(rng, rules)
    dealt = list(a.hand)
    game = Game((a, b), rules, active=0 if first else 1)
    winner = play_game(game, (policy_a, policy_b), rng)
    held = recorded_hand(dealt, first)
    return {
        "win": int(winner == 0),
        "FirstA": int(first),
        **dict(zip(HAND_NAMES, held)),
        "DealtMon": dealt[MONSTER],
        "DealtSpell": dealt[SPELL],
        "DealtTrap": dealt[TRAP],
        "PrAwMST": policy_a.attack_mst,
        "PrAwM": policy_a.attack_m,
        "PrAwST": policy_a.attack_st,
        "BsAlways": int(b_always),
        "turns": game.turn + 1,
        "decked_out": int(game.decked_out),
    }


def _table1_chunk(args) -> list[dict]:
    seed, indices, grid, rules = args
    combos = list(itertools.product(grid, repeat=3))
    return [play_recorded(seed, i, Policy(*combos[i % len(combos)]), rules) for i in indices]


def _run_chunks(worker, seed: int, n_games: int, extra: tuple, workers: int, progress: bool) -> pd.DataFrame:
    """Run ``worker`` over chunks of game indices, serially or in a process pool."""
    chunk = 500
    jobs = [(seed, range(lo, min(lo + chunk, n_games)), *extra) for lo in range(0, n_games, chunk)]
    if workers > 1:
        with process_pool(workers) as pool:
            parts = pool.map(worker, jobs)
            parts = list(_progress(parts, len(jobs), progress))
    else:
        parts = [worker(job) for job in _progress(jobs, len(jobs), progress)]
    return pd.DataFrame([row for part in parts for row in part])


def _progress(iterable, total: int, enabled: bool):
    if not enabled:
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, total=total, unit="chunk")


def simulate_table1(
    n_games: int = PAPER_TABLE1_N,
    seed: int = 0,
    grid=TABLE1_GRID,
    rules: Rules = TABLE1_RULES,
    workers: int = 1,
    progress: bool = False,
) -> pd.DataFrame:
    """The Table 1 data set: game ``i`` gives A the ``i mod |grid|^3``-th weight triple.

    One row per game with the columns of :func:`play_recorded`.
    """
    if n_games < 1:
        raise YugiohError(f"n_games must be positive, got {n_games}")
    return _run_chunks(_table1_chunk, seed, n_games, (tuple(grid), rules), workers, progress)


@dataclass
class WinModel:
    """A fitted logit of A's win: coefficient table, regressor names, statsmodels result."""

    table: pd.DataFrame
    regressors: tuple[str, ...]
    interactions: bool
    result: object
    n: int

    @property
    def params(self) -> pd.Series:
        """The logit's coefficients, by regressor name."""
        return self.table["coef"]


def _design(records: pd.DataFrame, interactions: bool) -> pd.DataFrame:
    cols = ["FirstA", *HAND_NAMES, *WEIGHT_NAMES]
    X = records[cols].astype(float).copy()
    if interactions:
        for w in WEIGHT_NAMES:
            for v in ("FirstA", *HAND_NAMES):
                X[f"{w}:{v}"] = X[w] * X[v]
    X.insert(0, "const", 1.0)
    return X


def _fit_logit(sm, wins, X):
    """The logit (statsmodels) of ``wins`` on ``X``; a sample too small to identify it is a :class:`YugiohError`."""
    from statsmodels.tools.sm_exceptions import PerfectSeparationError

    try:
        return sm.Logit(wins, X).fit(disp=0)
    except (np.linalg.LinAlgError, PerfectSeparationError) as exc:
        raise YugiohError(f"the logit cannot be fitted on {len(wins):,} games ({exc}): play more games") from None


def fit_table1(records: pd.DataFrame, interactions: bool = False) -> WinModel:
    """Logit of ``win`` on FirstA, the recorded hand and A's weights (the paper's Table 1)."""
    require("statsmodels", "fitting the Yu-Gi-Oh win model")
    import statsmodels.api as sm

    X = _design(records, interactions)
    result = _fit_logit(sm, records["win"].astype(float), X)
    table = pd.DataFrame({"coef": result.params, "se": result.bse, "z": result.tvalues})
    return WinModel(table, tuple(X.columns), interactions, result, len(records))


def win_probability(model: WinModel, first: bool, hand, weights) -> np.ndarray:
    """Predicted P(A wins) for a hand (monsters, spells, traps) at an array of weight triples."""
    W = np.atleast_2d(np.asarray(weights, dtype=float))
    row = pd.DataFrame(W, columns=list(WEIGHT_NAMES))
    row["FirstA"] = float(first)
    for name, count in zip(HAND_NAMES, hand):
        row[name] = float(count)
    eta = _design(row, model.interactions).to_numpy() @ model.params.to_numpy()
    return 1.0 / (1.0 + np.exp(-eta))


def adp_weights(model: WinModel, first: bool, hand, grid=ADP_GRID) -> tuple[Policy, float]:
    """The weight triple in ``grid^3`` maximising the predicted win, and that probability."""
    combos = np.array(list(itertools.product(grid, repeat=3)))
    prob = win_probability(model, first, hand, combos)
    best = int(np.argmax(prob))
    return Policy(*(float(w) for w in combos[best])), float(prob[best])


STRATEGIES_A = ("ADP", "Half", "Always")
STRATEGIES_B = ("Half", "Always")


def _table2_chunk(args) -> list[dict]:
    seed, indices, params, interactions, per_cell, rules = args
    model = WinModel(pd.DataFrame({"coef": params}), tuple(params.index), interactions, None, 0)
    cells = list(itertools.product(STRATEGIES_A, STRATEGIES_B))
    rows = []
    for i in indices:
        strat_a, strat_b = cells[i // per_cell]
        rng = game_rng(seed, i)
        first = bool(rng.integers(2))
        a, b = deal(rng, rules), deal(rng, rules)
        if strat_a == "ADP":
            policy_a = adp_weights(model, first, recorded_hand(a.hand, first))[0]
        else:
            policy_a = HALF if strat_a == "Half" else ALWAYS
        policy_b = HALF if strat_b == "Half" else ALWAYS
        game = Game((a, b), rules, active=0 if first else 1)
        winner = play_game(game, (policy_a, policy_b), rng)
        rows.append(
            {
                "win": int(winner == 0),
                "FirstA": int(first),
                **{f"As{s}": int(s == strat_a) for s in STRATEGIES_A},
                **{f"Bs{s}": int(s == strat_b) for s in STRATEGIES_B},
                "PrAwMST": policy_a.attack_mst,
                "PrAwM": policy_a.attack_m,
                "PrAwST": policy_a.attack_st,
            }
        )
    return rows


def simulate_table2(
    model: WinModel,
    games_per_cell: int = PAPER_TABLE2_N // 6,
    seed: int = 1,
    rules: Rules = TABLE2_RULES,
    workers: int = 1,
    progress: bool = False,
) -> pd.DataFrame:
    """The Table 2 data set: A in {ADP, Half, Always} x B in {Half, Always}, games_per_cell each.

    The ADP player evaluates ``model`` at its turn order and its hand in the
    convention the model was fitted on (:func:`fit_table1`'s recorded hand).
    """
    if games_per_cell < 1:
        raise YugiohError(f"games_per_cell must be positive, got {games_per_cell}")
    n_games = games_per_cell * len(STRATEGIES_A) * len(STRATEGIES_B)
    extra = (model.params, model.interactions, games_per_cell, rules)
    return _run_chunks(_table2_chunk, seed, n_games, extra, workers, progress)


def fit_table2(records: pd.DataFrame) -> pd.DataFrame:
    """The paper's Table 2: logit of ``win`` on const, FirstA, AsHalf, AsAlways, AsADP.

    The three strategy indicators sum to one, so the model is fitted without
    the intercept and mapped to the minimum-norm solution of the
    over-parameterised one, ``P @ theta`` with ``P`` the projector orthogonal
    to the null direction (const +1, each As -1); covariance ``P C P``.
    """
    require("statsmodels", "fitting the Yu-Gi-Oh win model")
    import statsmodels.api as sm

    strategies = [f"As{s}" for s in ("Half", "Always", "ADP")]
    X = records[["FirstA", *strategies]].astype(float)
    result = _fit_logit(sm, records["win"].astype(float), X)
    names = ["const", "FirstA", *strategies]
    theta = np.concatenate([[0.0], result.params.to_numpy()])
    cov = np.zeros((5, 5))
    cov[1:, 1:] = result.cov_params().to_numpy()
    null = np.array([1.0, 0.0, -1.0, -1.0, -1.0])
    P = np.eye(5) - np.outer(null, null) / (null @ null)
    coef, se = P @ theta, np.sqrt(np.diag(P @ cov @ P))
    return pd.DataFrame({"coef": coef, "se": se, "z": coef / se}, index=names)


def compare(ours: pd.DataFrame, paper: dict) -> pd.DataFrame:
    """Side-by-side table of our coefficients and standard errors with the paper's."""
    rows = {
        name: {
            "paper": paper[name][0],
            "paper_se": paper[name][1],
            "ours": ours.loc[name, "coef"],
            "ours_se": ours.loc[name, "se"],
        }
        for name in paper
    }
    return pd.DataFrame(rows).T
