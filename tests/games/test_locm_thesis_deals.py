"""The thesis's own deals: gym-locm's offers and draw orders, and Vieira (2020), Figure 5.2 replayed on them."""

from __future__ import annotations

import numpy as np
import pytest

from gamelp.games.errors import LocmError
from gamelp.games.locm.thesis_deals import THESIS_SEEDS, gym_locm_deal, thesis_cell


def test_deal_matches_gym_locm():
    # gym-locm's State(32360377) (the thesis's first deal), read from its engine: first, second and last offers,
    # and the first six draw positions of each player
    deal = gym_locm_deal(THESIS_SEEDS[0] + 750)
    assert deal.offers[:2].tolist() == [[114, 61, 77], [137, 77, 35]]
    assert deal.offers[-1].tolist() == [34, 134, 13]
    assert deal.orders[0][:6] == [21, 6, 9, 25, 19, 0]
    assert deal.orders[1][:6] == [15, 10, 24, 5, 8, 4]


def test_deal_shape():
    deal = gym_locm_deal(7)
    assert deal.offers.shape == (30, 3)
    assert len(np.unique(deal.offers)) <= 60
    assert all(len(set(row)) == 3 for row in deal.offers.tolist())
    assert all(sorted(order) == list(range(30)) for order in deal.orders)


@pytest.mark.parametrize("row, col, published", [("max-attack", "coac", 51.24), ("coac", "closet-ai", 43.12)])
def test_figure_5_2_cells_on_the_thesis_deals(row, col, published):
    # Vieira (2020), Figure 5.2 (max-attack battler), to the digits given
    assert round(thesis_cell(row, col), 2) == published


def test_negative_seed_refused():
    with pytest.raises(LocmError, match="non-negative"):
        gym_locm_deal(-1)
