"""Solver models of games (Nash LPs, deterministic and k-determinism MIPs, robust LPs, uniqueness test).

Their strategy results share one small protocol, :class:`SolverResult`: a
``value``, a ``strategy`` and ``to_dict()``, a JSON-ready summary (value,
status, backend, player, strategy as label -> probability, ...) that the
``gamelp`` command prints as it is; the first-order results
(``gamelp.regret.RegretResult``, ``gamelp.models.matrix_first_order.FirstOrderResult``)
follow it too.  Players are ``1`` / ``2`` in sequence-form games and
``"row"`` / ``"col"`` in matrix games (:mod:`gamelp.players` converts between them
and the simulators' seats ``0`` / ``1``).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class SolverResult(Protocol):
    """The result of a solver: a value and a strategy, and a JSON-ready dictionary of both."""

    value: float
    strategy: object  # an array over the player's sequences or pure strategies (a label dict for sweep points)

    def to_dict(self) -> dict:
        """The result as a JSON-ready dictionary."""
