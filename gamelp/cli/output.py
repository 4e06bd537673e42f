"""Output shared by gamelp's commands: JSON on stdout and progress bars on stderr.

tqdm is imported only when a bar is made, so commands that show none never load it.
"""

from __future__ import annotations

import json
import math
import sys

import numpy as np

from gamelp.errors import GamelpError

# The k-sweep's bar: "k-sweep: 3/7 values of k |███▍    | 00:02<00:03".
SWEEP_BAR = "{desc}: {n_fmt}/{total_fmt} values of k |{bar}| {elapsed}<{remaining}"


def print_json(payload) -> None:
    """Print ``payload`` as indented, strict JSON; numpy numbers are written as floats.

    JSON has no NaN or infinity (Python would write ``NaN`` and ``Infinity``, which JSON readers refuse), so a
    payload holding one is refused in one line naming where, and nothing is printed.
    """
    try:
        text = json.dumps(payload, indent=2, default=float, allow_nan=False)
    except ValueError:
        where, number = _first_non_finite(payload)
        if where is None:  # not a number: a circular reference, say
            raise
        raise GamelpError(f"--json: the result's {where or 'value'} is {number}, which JSON cannot write") from None
    print(text)


def _first_non_finite(payload, where: str = "") -> tuple[str, float] | tuple[None, None]:
    """The key path (``value``, ``points[3].bound``) and value of the first NaN or infinity in ``payload``."""
    if isinstance(payload, dict):
        items = ((f"{where}.{key}" if where else str(key), value) for key, value in payload.items())
    elif isinstance(payload, (list, tuple)):
        items = ((f"{where}[{k}]", value) for k, value in enumerate(payload))
    else:
        number = float(payload) if isinstance(payload, (int, float, np.number)) else 0.0
        return (where, number) if not math.isfinite(number) else (None, None)
    for place, value in items:
        found = _first_non_finite(value, place)
        if found[0] is not None:
            return found
    return None, None


def print_fractions(strategy: dict, width: int) -> None:
    """An exact strategy's non-zero weights, one ``label  p/q`` line each (the empty sequence left out)."""
    for label, weight in strategy.items():
        if weight != "0" and label != "∅":
            print(f"  {label:{width}s} {weight}")


def certificate_note(exact: dict) -> str:
    """The line after an exact certificate: how its fractions were found and how the payoffs were read."""
    binary = exact["binary_payoffs"]
    taken = f"{binary} taken as binary values" if binary else "none taken as its binary value"
    how = f"certified in rational arithmetic ({exact['recovery']})"
    return f"{how}; {exact['payoffs']} payoffs read as fractions, {taken}"


def sweep_progress():
    """A progress bar on stderr for a k-sweep; called as ``update(done, total)``, ``done`` values of k of ``total``.

    It counts values of k and shows no rate: tqdm's rate of a unit "k" read as thousands ("96.80k/s").
    The bar appears at the first update, so a sweep refused before it starts leaves none behind.
    """
    from tqdm import tqdm

    bar = None

    def update(done, total):
        nonlocal bar
        if bar is None:
            bar = tqdm(desc="k-sweep", bar_format=SWEEP_BAR, file=sys.stderr, leave=False)
        bar.total = total
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()

    return update


def regret_progress(total: int):
    """A progress bar on stderr for a regret run, showing the gap; called as ``update(t, gap)``."""
    from tqdm import tqdm

    bar = tqdm(total=total, unit="it", file=sys.stderr, leave=False, mininterval=0.5, disable=None)

    def update(done, gap):
        bar.n = done
        bar.set_postfix(gap=f"{gap:.2e}", refresh=True)
        if done >= total:
            bar.close()

    return update


def add_constant_sum(payload: dict, game) -> float:
    """Report a constant-sum game's values with the constant; returns ``c`` (0 for a zero-sum game).

    A game read from a Gambit file whose payoffs sum to ``c`` at every outcome (``game.constant_sum``,
    :mod:`gamelp.games.gambit`) is solved as the zero-sum game ``u1 - c/2``: each player's payoff with the
    constant is the zero-sum one plus ``c/2``.  So ``value`` (and ``guaranteed_value``, and the exact value),
    whoever's it is, gain ``c/2``; ``zero_sum_value`` keeps the solved game's, ``constant_sum`` is ``c`` (as a
    fraction, under ``exact``), and the other player's value is ``c - value``.  A MIP's ``bound`` moves with
    ``value``.
    """
    from fractions import Fraction

    constant = Fraction(getattr(game, "constant_sum", 0))
    if not constant:
        return 0.0
    payload["constant_sum"] = float(constant)
    payload["zero_sum_value"] = payload["value"]
    for key in ("value", "guaranteed_value", "bound"):
        if key in payload:
            payload[key] += float(constant / 2)
    if payload.get("exact"):
        payload["exact"]["constant_sum"] = str(constant)
        payload["exact"]["value"] = str(Fraction(payload["exact"]["value"]) + constant / 2)
    return float(constant)


def constant_sum_note(payload: dict) -> str | None:
    """The line saying how a constant-sum game's values are reported (:func:`add_constant_sum`); None if zero-sum."""
    if "constant_sum" not in payload:
        return None
    constant = (payload.get("exact") or {}).get("constant_sum", f"{payload['constant_sum']:.10g}")
    return (
        f"constant-sum game: the payoffs sum to {constant}; solved as the zero-sum game u1 - c/2 "
        f"(value {payload['zero_sum_value']:.10g}), each player's value given with the constant's half c/2"
    )
