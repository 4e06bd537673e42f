"""The ``gamelp solve`` command: one player's optimal strategy of a sequence-form game, or both players'.

By the Nash LP (``--method lp``, the default), the best deterministic strategy
(``--deterministic``, an ILP), with Mangasarian's uniqueness test (``--unique``),
the strategy a rule selects on the optimal face (``--select min-norm``, the same on every backend:
:mod:`gamelp.models.select`), a refined equilibrium, exact and defined at every information set
(``--refine quasi-perfect``: :mod:`gamelp.models.refine`; ``--refine proper``: :mod:`gamelp.models.proper`), or by
regret-minimisation self-play (``--method cfr+`` and the others of :mod:`gamelp.regret`).  ``--player both``
reports both players' strategies from one run: one Nash LP and its duals, one refinement, or one self-play run.
"""

from __future__ import annotations

import argparse
import logging
from fractions import Fraction

from gamelp.backends import DEFAULT_BACKEND
from gamelp.cli.args import (
    BACKEND_HELP,
    MAX_ITERATIONS,
    add_game_argument,
    finite_float,
    integer,
    load_game_argument,
    plot_path,
)
from gamelp.cli.output import (
    add_constant_sum,
    certificate_note,
    constant_sum_note,
    print_fractions,
    print_json,
    regret_progress,
)
from gamelp.errors import GamelpError
from gamelp.models.select import SELECT_RULES, check_rule
from gamelp.regret import METHODS as REGRET_METHODS
from gamelp.regret.simplex import DEFAULT_ETA

log = logging.getLogger(__name__)
# A tree with more decision points than this is drawn to PLOT_DEPTH levels unless --plot-depth says otherwise.
PLOT_WHOLE_TREE, PLOT_DEPTH = 30, 4


def add_subparser(commands) -> argparse.ArgumentParser:
    """Add ``solve`` to the main parser's sub-commands."""
    solve = commands.add_parser("solve", help="solve a sequence-form game for one player or both")
    add_game_argument(solve)
    solve.add_argument(
        "--player",
        type=player_choice,
        choices=(1, 2, "both"),
        default=1,
        help="whose strategy: 1 (default), 2, or both (one LP: player 2's strategy is read from its duals)",
    )
    solve.add_argument("--backend", default=DEFAULT_BACKEND, help=BACKEND_HELP)
    solve.add_argument("--time-limit", type=finite_float(0.0), help="seconds the solver may take (LP and MIP methods)")
    solve.add_argument("--deterministic", action="store_true", help="best deterministic strategy (ILP)")
    solve.add_argument(
        "--unique",
        action="store_true",
        help="Mangasarian's uniqueness test of the printed LP optimum; objectives and the second optimum in the "
        "input's units, tolerances read on the LP as the solver balances it (unit-free)",
    )
    solve.add_argument(
        "--exact",
        action="store_true",
        help="certify the LP's answer exactly: both players' strategies as fractions, checked in rational "
        "arithmetic, and the value as a fraction (a check that fails is named, exit 2)",
    )
    add_select_argument(solve)
    solve.add_argument(
        "--refine",
        metavar="REFINEMENT",
        help="a refined equilibrium, exact, with a behavioural strategy at every information set (quasi-perfect: "
        "the limit of Miltersen and Sørensen's perturbed LP, both players from one LP on HiGHS: "
        "gamelp.models.refine; proper: normal-form proper, Dresher's procedure on the sequence form, one LP per "
        "stage: gamelp.models.proper)",
    )
    solve.add_argument(
        "--method",
        default="lp",
        choices=("lp", *REGRET_METHODS),
        help="lp (default) or a regret-minimisation self-play method",
    )
    solve.add_argument(
        "--iterations",
        type=integer(1, MAX_ITERATIONS),
        default=1000,
        help="iterations for regret methods (default 1000)",
    )
    solve.add_argument(
        "--eta",
        type=finite_float(0.0, strict=True),
        default=DEFAULT_ETA,
        help="step size of mwu / omwu, relative to the payoff range (default %(default)s)",
    )
    solve.add_argument(
        "--target-gap",
        type=finite_float(0.0),
        help="regret methods stop once the saddle-point gap is at most this times the largest entry of the game's "
        "payoff matrix, where payoffs are weighted by chance (so it depends on how chance is encoded: the built-in "
        "Leduc's largest entry is 0.867, OpenSpiel's Leduc's 0.108)",
    )
    solve.add_argument(
        "--averaging",
        type=averaging_weights,
        help="regret methods' average: uniform, linear, quadratic or an exponent gamma of the "
        "weights t^gamma (default: the method's own; pdcfr+'s is 20 on a game, which reaches a gap of 1e-6 "
        "on Leduc in 8,950 iterations)",
    )
    solve.add_argument(
        "--behavioural",
        action="store_true",
        help="print the strategy as action probabilities per decision point (information set)",
    )
    solve.add_argument(
        "--plot",
        type=plot_path,
        help="draw the player's decision process with the strategy's probabilities to this file (.png, .pdf, ...)",
    )
    solve.add_argument(
        "--plot-depth",
        type=integer(1, 1000),
        help=f"levels of the tree drawn by --plot (default: all of it up to {PLOT_WHOLE_TREE} decision points, "
        f"else {PLOT_DEPTH})",
    )
    solve.add_argument("--json", action="store_true", help="print JSON")
    solve.add_argument("--verbose", action="store_true", help="show the solver log")
    solve.set_defaults(func=run_solve)
    return solve


# The weights t^gamma and their sum (about T^(gamma + 1)) stay floats for every iteration count gamelp runs
# (T <= 1e9) up to this exponent; DCFR's is 2.
MAX_AVERAGING_EXPONENT = 32


def add_select_argument(parser: argparse.ArgumentParser) -> None:
    """``--select RULE``: the rule that picks one point of the optimal face (shared by ``solve`` and ``matrix``)."""
    parser.add_argument(
        "--select",
        metavar="RULE",
        help=f"return the optimal strategy this rule selects, the same on every backend "
        f"({', '.join(SELECT_RULES)}: the optimal strategy of least Euclidean norm; one QP per player after the "
        "LP); default: the LP's optimum as the solver returns it",
    )


def check_select(args, refused: tuple[tuple[bool, str], ...]) -> None:
    """Refuse an unknown ``--select`` rule (with a did-you-mean) or one given with an option it cannot go with."""
    if args.select is None:
        return
    check_rule(args.select)
    for given, option in refused:
        if given:
            raise GamelpError(f"--select picks an optimum of the Nash LP: it cannot go with {option}")


def _check_refine(args) -> None:
    """Refuse an unknown ``--refine`` (with a did-you-mean) or one given with an option it cannot go with."""
    from gamelp.models.refine import BACKENDS, check_refinement

    check_refinement(args.refine)
    for given, option in (
        (args.method != "lp", f"--method {args.method}"),
        (args.deterministic, "--deterministic"),
        (args.unique, "--unique"),
        (args.select is not None, "--select"),
        (args.backend not in BACKENDS, f"--backend {args.backend} (it reads HiGHS's optimal basis: highs or auto)"),
    ):
        if given:
            raise GamelpError(f"--refine solves LPs on HiGHS and reads their bases: it cannot go with {option}")


def player_choice(text: str) -> int | str:
    """``1`` or ``2`` as a number, anything else as given (argparse's choices refuse it)."""
    return int(text) if text in ("1", "2") else text


def averaging_weights(text: str) -> str | float:
    """A regret method's averaging: a name, or the exponent gamma of the weights t^gamma."""
    if text in ("uniform", "linear", "quadratic"):
        return text
    try:
        gamma = float(text)
    except ValueError:
        gamma = float("nan")
    if not 0 <= gamma <= MAX_AVERAGING_EXPONENT:
        raise argparse.ArgumentTypeError(
            f"expected uniform, linear, quadratic or an exponent from 0 to {MAX_AVERAGING_EXPONENT}, got {text!r}"
        )
    return gamma


def run_solve(args) -> int:
    """``gamelp solve``: solve a game by the LP or a regret method and print the value and strategy."""
    check_select(
        args,
        (
            (args.method != "lp", f"--method {args.method}"),
            (args.deterministic, "--deterministic"),
            (args.unique, "--unique (it tests the LP's own optimum)"),
        ),
    )
    if args.refine is not None:
        _check_refine(args)
    game = load_game_argument(args)
    refined = None
    both = args.player == "both"
    own = game.player(2 if args.player == 2 else 1)  # with both: player 1, whose strategy is printed first
    if args.plot:
        from gamelp.plots import check_drawable

        check_drawable(own, _plot_depth(args, own))  # a tree too large to draw is refused before the solve
    if args.exact and (args.deterministic or args.behavioural):
        raise GamelpError(
            "--exact certifies the Nash LP's equilibrium in sequence form: not with --deterministic or --behavioural"
        )
    if args.method != "lp":
        if args.deterministic or args.unique or args.exact:
            raise GamelpError("--deterministic, --unique and --exact need the LP (--method lp)")
        from gamelp.regret import solve_regret

        result = solve_regret(
            game,
            method=args.method,
            iterations=args.iterations,
            eta=args.eta,
            target_gap=args.target_gap,
            averaging=args.averaging,
            track_last=False,
            progress=None if args.json else regret_progress(args.iterations),
        )
        x, payload = (result.x if args.player != 2 else result.y), result.to_dict(2 if args.player == 2 else 1)
        y = result.y
        if both:
            payload.update(player="both", opponent_strategy=result.to_dict(2)["strategy"])
    elif args.refine is not None:
        from gamelp.models.refine import solve_refined

        refined = solve_refined(game, args.refine, args.backend, verbose=args.verbose, time_limit=args.time_limit)
        x, y, payload = refined.strategy_of(own.player), refined.y, refined.to_dict(args.player, exact=args.exact)
    elif both:
        if args.deterministic or args.unique:
            raise GamelpError(
                "--player both reads player 2's strategy from the Nash LP's duals: "
                "--deterministic and --unique solve one player at a time"
            )
        from gamelp.models.nash import solve_equilibrium

        equilibrium = solve_equilibrium(
            game, args.backend, select=args.select, exact=args.exact, verbose=args.verbose, time_limit=args.time_limit
        )
        x, y, payload = equilibrium.x, equilibrium.y, equilibrium.to_dict()
    else:
        from gamelp.models.determinism import solve_deterministic
        from gamelp.models.nash import solve_nash

        options = {"verbose": args.verbose, "time_limit": args.time_limit}
        if args.deterministic:
            nash = solve_deterministic(game, args.player, args.backend, **options)
        else:
            nash = solve_nash(game, args.player, args.backend, select=args.select, exact=args.exact, **options)
        x, payload = nash.strategy, nash.to_dict()
        if args.unique:
            from gamelp.models.uniqueness import check_game_uniqueness

            if args.deterministic:
                raise GamelpError("--unique tests the Nash LP's optimum, not the deterministic ILP's")
            # The printed optimum itself, in the game's units (the test balances a badly scaled LP).
            verdict = check_game_uniqueness(game, args.player, args.backend, result=nash)
            payload.update(verdict.to_dict())
    add_constant_sum(payload, game)  # a constant-sum Gambit game: values with the constant
    if args.behavioural:
        # A refinement's behavioural strategy is its own at every decision point (not uniform where unreached).
        payload["behavioural"] = own.to_behavioural(x) if refined is None else refined.behavioural_of(own.player)
        if both:
            payload["opponent_behavioural"] = (
                game.pl2.to_behavioural(y) if refined is None else refined.behavioural_of(2)
            )
    if args.plot:
        _plot_tree(args, game.name, own, 2 if args.player == 2 else 1, x)
    if args.json:
        print_json(payload)
    else:
        _print_text(args, game.name, payload)
    return 0


def _plot_tree(args, name: str, own, player: int, x) -> None:
    """``--plot``: ``player``'s tree (``own``) with the strategy's probabilities, cut at ``--plot-depth``."""
    from gamelp.plots import plot_strategy_tree

    depth = _plot_depth(args, own)
    if args.plot_depth is None and depth is not None:
        log.warning(
            "%s: player %d has %d decision points; drawing the tree to depth %d (--plot-depth sets it)",
            name,
            player,
            own.num_decision_points,
            depth,
        )
    plot_strategy_tree(own, x, args.plot, depth=depth, title=f"{name}: player {player}'s strategy")


def _plot_depth(args, own) -> int | None:
    """The levels ``--plot`` draws: ``--plot-depth``, else all of a tree up to PLOT_WHOLE_TREE decision points."""
    if args.plot_depth is None and own.num_decision_points > PLOT_WHOLE_TREE:
        return PLOT_DEPTH
    return args.plot_depth


def _print_text(args, name: str, payload: dict) -> None:
    player = 1 if args.player == "both" else args.player
    if "exact" in payload:
        _print_exact(name, player, payload)
        return
    print(f"{name}: player {player} value {payload['value']:.10g} (gap {payload['gap']:.2e}, {payload['backend']})")
    if note := constant_sum_note(payload):
        print(note)
    if payload["status"] not in ("optimal", "converged", "iteration_limit"):
        print(f"status: {payload['status']} (not a proven optimum)")
    if payload["status"] == "iteration_limit":
        target = "" if args.target_gap is None else f" before reaching the target gap {args.target_gap:g}"
        print(
            f"stopped at the iteration limit ({payload['iterations']} iterations){target}: an approximate "
            f"equilibrium, saddle-point gap {payload['gap']:.2e}"
        )
    if payload.get("refine") == "proper":
        print(
            f"refined: proper (normal form), Dresher's procedure on the sequence form ({payload['lps']} LPs on "
            f"HiGHS, each optimum verified exactly)"
        )
    elif payload.get("refine"):
        print(
            f"refined: {payload['refine']}, the limit of the perturbed equilibria (HiGHS's basis at "
            f"eps={payload['epsilon']}, exact pivots {payload['pivots']}: optimal for every small eps > 0)"
        )
    _print_selection(payload)
    if "unique" in payload:
        print(f"unique: {payload['unique']}")
    _print_strategy(args, payload["behavioural"] if args.behavioural else payload["strategy"])
    if args.player == "both":
        print(f"{name}: player 2 value {payload.get('constant_sum', 0) - payload['value']:.10g}")
        _print_strategy(args, payload["opponent_behavioural"] if args.behavioural else payload["opponent_strategy"])


def _print_selection(payload: dict) -> None:
    """``--select``: the rule, and any selection the exact step did not verify."""
    if payload.get("select"):
        print(f"selected by {payload['select']}: the optimal strategy of least Euclidean norm")
        for selection in payload.get("selection", []):
            if not selection["polished"]:
                print(f"not verified exactly ({selection['note']})")


def _print_exact(name: str, player: int, payload: dict) -> None:
    """``--exact``: the certified value and both strategies as fractions, then how they were found."""
    exact = payload["exact"]
    value = Fraction(exact["value"])
    print(f"{name}: player {player} value {value} (= {float(value):.10g}; exact, {payload['backend']})")
    if note := constant_sum_note(payload):
        print(note)
    _print_selection(payload)
    if "unique" in payload:
        print(f"unique: {payload['unique']}")
    print_fractions(exact["strategy"], 30)
    print(f"{name}: player {3 - player} value {Fraction(exact.get('constant_sum', 0)) - value}")
    print_fractions(exact["opponent_strategy"], 30)
    print(certificate_note(exact))


def _print_strategy(args, strategy: dict) -> None:
    """The behavioural strategy (--behavioural), or the sequence-form weights above 1e-9."""
    if args.behavioural:
        _print_behavioural(strategy)
        return
    for label, prob in strategy.items():
        if prob > 1e-9 and label != "∅":
            print(f"  {label:30s} {prob:.6f}")


def _print_behavioural(behaviour: dict) -> None:
    """One line per decision point (information set): its actions' probabilities."""
    for point, probabilities in behaviour.items():
        shown = ", ".join(f"{action} {p:.6f}" for action, p in probabilities.items())
        print(f"  {point.replace(chr(10), ' ')}: {shown}")
