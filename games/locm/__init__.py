"""Legends of Code and Magic 1.2: the arena draft and the battle, as the official referee plays them.

API for the drafters, tournaments and learners built on it:

- ``cards.locm12_cards() -> CardTable``: the 160 cards, read-only numpy arrays
  indexed by ``card_id - 1`` (``type``, ``cost``, ``attack``, ``defense``,
  ``abilities`` bit mask, ``ability_flags`` (160, 6), ``player_hp``,
  ``enemy_hp``, ``card_draw``; ``names``, ``texts``).
- ``draft.RefereeSeeds.from_seed(seed)``: the referee's draft and shuffle
  seeds for a match seed; ``draft.draft_offers(seeds.draft) -> (30, 3)``
  card ids, the same three offered to both players each turn.
- A drafter: any object with ``pick(offer, chosen, seat, rng) -> 0|1|2``
  (``draft.Drafter``); ``offer`` is three card ids, ``chosen`` the ids this
  drafter already picked, ``seat`` 0 (plays first) or 1, ``rng`` the match's
  ``random.Random`` (its only source of randomness).
- A battler: any object with ``act(state, rng) -> Action`` (``battlers.Battler``),
  called again and again in its turn until it returns ``PASS``; ``state`` is an
  ``engine.State`` seen from the player to move, ``rng`` a ``random.Random``.
  Actions are tuples ``(kind, origin, target)`` (``engine.PASS``, ``SUMMON``
  with a lane 0/1, ``ATTACK`` / ``USE`` with an instance id or -1 for the
  opponent).  An illegal action is skipped, as the referee skips it.
- ``match.play_match(drafter0, drafter1, battler0, battler1, seed) -> MatchResult``:
  a full match (draft, shuffles, battle); the same seed gives the same draft
  offers, shuffles and, with the same agents, the same match.
"""
