"""A search that reads the table (issue 36): the hand inference (what the other seats'
offers, wants and refusals imply about their hidden hands), the determiniser's weighted
deal, the search's 2-for-2 and per-partner offer candidates, and its shared offer-list
cache. The determiniser must still never deal a card the seat saw leave play."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence

import pytest

from bohnanza import Action, Game, Offer, View
from bohnanza.agents import make_agent
from bohnanza.agents.heuristic import HeuristicAgent
from bohnanza.agents.search import SearchAgent
from bohnanza.determinise import (
    ASKED,
    REFUSED,
    UNSHOWN,
    Determiniser,
    HandInference,
    SeenCards,
)
from bohnanza.driver import PlayLog, play
from test_determinise import CONFIGS, trade_phase


def grows(view: View, seat: int, v: int) -> bool:
    cv = view.config.card_variety
    return any(f and cv[f[-1]] == v for f in view.seats[seat].fields)


# ---------------------------------------------------------------------------- inference


def test_a_refusal_lowers_and_a_want_raises_the_weight_of_a_variety() -> None:
    """An offer asking a non-active seat for a variety it does not grow, refused: that
    seat probably holds none (weight REFUSED). A seat asking for a variety it does not
    grow probably holds some (ASKED), and the varieties it did not offer from its hand
    and does not grow are a little less likely (UNSHOWN)."""
    cfg_names: tuple[str, ...] = ()
    for seed in range(40):
        game = trade_phase("classic", 4, seed)
        a = game.active
        me, s, s2 = (a + 1) % 4, (a + 2) % 4, (a + 3) % 4
        view = game.view(me)
        cfg_names = view.config.varieties
        cv = view.config.card_variety
        free = [v for v in range(len(cfg_names)) if not grows(view, s, v)]
        mine = [c for c in game.drawn] + list(game.hands[a])
        hand2 = list(game.hands[s2])
        asked = [v for v in range(len(cfg_names)) if not grows(view, s2, v)]
        if free and mine and hand2 and len(asked) >= 3:
            break
    else:
        pytest.fail("no suitable trade phase in 40 games")
    inference = HandInference()
    inference.update(view)
    assert inference.weights(view) == {}
    v = free[0]
    game.apply(a, Action.propose(Offer(s, (mine[0],), ((cfg_names[v], 1),))))
    inference.update(game.view(me))
    (offer_id,) = game.offers
    game.apply(s, Action.decline(offer_id))
    view = game.view(me)
    inference.update(view)
    w = inference.weights(view)
    assert w[s][v] == pytest.approx(REFUSED)
    assert all(x == 1.0 for k, x in enumerate(w[s]) if k != v)
    # Seat s2 offers the active seat a hand card and asks for a variety it does not grow.
    shown = cv[hand2[0]]
    want = next(u for u in asked if u != shown)
    other = next(u for u in asked if u not in (shown, want))
    game.apply(s2, Action.propose(Offer(a, (hand2[0],), ((cfg_names[want], 1),))))
    view = game.view(me)
    inference.update(view)
    w = inference.weights(view)
    assert w[s2][want] == pytest.approx(ASKED * UNSHOWN)
    assert w[s2][other] == pytest.approx(UNSHOWN)
    assert w[s2][shown] == 1.0
    # Its own seat gets no weights.
    assert me not in w


def test_weighted_deals_follow_the_weights_and_keep_every_count() -> None:
    """A seat whose weight of a variety is high gets more of it in samples than a
    uniform deal gives, and every sample stays a valid state that shows the seat its
    view exactly (the weights move cards between hidden places, never the counts)."""
    game = trade_phase("classic", 4, seed=3)
    me = game.active
    view = game.view(me)
    s = (me + 1) % 4
    cv = view.config.card_variety
    counts = Counter(cv[c] for c in Determiniser(view).free)
    v = max(counts, key=lambda k: counts[k])
    w = [1.0] * len(view.config.varieties)
    w[v] = 8.0
    weighted = Determiniser(view, None, {s: w, me: [0.0] * len(w)})
    assert me not in weighted.weights
    plain = Determiniser(view)
    rng = random.Random(1)
    n_w = n_u = 0
    for k in range(60):
        g = weighted.sample(rng, check=True)
        assert sorted(g.all_card_locations()) == list(range(view.config.deck_size))
        assert game.view(me) == view and g.view(me) == view
        n_w += sum(1 for c in g.hands[s] if cv[c] == v)
        n_u += sum(1 for c in plain.sample(random.Random(k)).hands[s] if cv[c] == v)
    assert n_w > 1.5 * n_u


# ---------------------------------------------------------------------------- never a card that left play


class LeftPlay(HeuristicAgent):
    """A heuristic seat that checks, at each of its decisions, samples with the memory
    (and with the inference) against what it saw leave play, tracked here on its own
    from its views: a card it saw and sees no more is in no hand and not in the draw pile
    until the discard pile is shuffled into a new draw pile (R-DECK-1)."""

    def __init__(self, seed: int, infer: bool) -> None:
        super().__init__(seed)
        self.memory = SeenCards()
        self.inference = HandInference() if infer else None
        self.saw: set[int] = set()
        self.last: View | None = None
        self.rng = random.Random(seed)
        self.checked = 0
        self.left = 0

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        self.memory.update(view)
        if self.inference is not None:
            self.inference.update(view)
        p = self.last
        if p is not None and (view.runouts != p.runouts or view.draw_size > p.draw_size):
            self.saw = set()  # a reshuffle (or a run-out): what left may be anywhere
        visible = view.visible_cards()
        left = self.saw - visible
        weights = self.inference.weights(view) if self.inference is not None else None
        det = Determiniser(view, self.memory, weights)
        g = det.sample(self.rng, check=True)
        assert g.view(view.seat) == view
        for s in range(view.players):
            if s != view.seat:
                assert not left & set(g.hands[s]), f"seat {s} was dealt a card that left play"
        assert not left & set(g.draw), "the draw pile was dealt a card that left play"
        self.checked += 1
        self.left += bool(left)
        self.saw |= visible
        self.last = view
        return super().act(view, legal, required)


@pytest.mark.parametrize(
    "infer",
    [pytest.param(False, marks=pytest.mark.long), True],  # uniform samples: long mode
    ids=["uniform", "infer"],
)
@pytest.mark.parametrize(("rules", "players", "options"), CONFIGS)
def test_no_sample_deals_a_card_the_seat_saw_leave_play(
    rules: str, players: int, options: dict[str, str], infer: bool
) -> None:
    """On every decision of a whole game of every rule set and module: no hand and no
    draw pile of a sample holds a card the deciding seat saw and no longer sees (with
    the uniform deal and with the inference's weighted one)."""
    game = Game.new(rules, players, options=options, seed=17)
    agents = [LeftPlay(s, infer) for s in range(players)]
    play(game, agents)
    assert game.over
    assert sum(a.checked for a in agents) > 50
    assert sum(a.left for a in agents) > 10  # cards did leave play, and were checked


# ---------------------------------------------------------------------------- candidates


def test_two_for_two_and_per_partner_candidates_are_legal_offers() -> None:
    """``pairs`` adds 2-for-2 offers (two cards for two of a variety) and ``spread`` puts
    the best offer to each partner first: every candidate is legal in the real game."""
    twos = partners = 0
    for seed in range(40):
        game = trade_phase("classic", 4, seed)
        me = game.active
        view = game.view(me)
        legal = game.legal_actions(me)
        agent = SearchAgent(seed, pairs=True, spread=True)
        agent.seen.update(view)
        default = agent.heuristic.act(view, legal, False)
        cands = agent.candidates(view, legal, False, default)
        assert cands[0] == default
        assert len(cands) <= agent.max_candidates + 2
        for c in cands:
            if c is None:
                continue
            assert game.is_legal(me, c), c
            if c.type.name == "PROPOSE" and c.offer is not None:
                o = c.offer
                if len(o.give) == 2 and sum(n for _, n in o.want) == 2:
                    twos += 1
        tos = {c.offer.to for c in cands if c is not None and c.offer is not None}
        partners += len(tos) > 1
    assert twos > 0, "no 2-for-2 offer was tried in 40 positions"
    assert partners > 0


# ---------------------------------------------------------------------------- reproducible


class _Stop(Exception):
    pass


class _Until(HeuristicAgent):
    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if view.turn > 6:
            raise _Stop
        return super().act(view, legal, required)


def _log(spec: str, seed: int, **kwargs: bool) -> tuple[list[tuple[int, Action]], SearchAgent]:
    game = Game.new("classic", 4, seed=seed)
    search = make_agent(spec, 5)
    assert isinstance(search, SearchAgent)
    for k, x in kwargs.items():
        setattr(search, k, x)
    log = PlayLog()
    with pytest.raises(_Stop):
        play(game, [search, *(_Until(s) for s in range(1, 4))], log=log)
    assert search.searched > 0
    return log.actions, search


def test_search_with_the_new_options_is_reproducible_and_the_cache_changes_nothing() -> None:
    """``search:12ro:infer:pairs:spread`` makes the same choices under the same seed; the
    roll-outs' shared offer lists (the default) give exactly the choices of roll-outs that
    compute their own."""
    spec = "search:12ro:infer:pairs:spread"
    first, agent = _log(spec, 12)
    assert agent.inference is not None and agent.pairs and agent.spread
    assert _log(spec, 12)[0] == first
    assert _log(spec, 12, cache=False)[0] == first
    assert not math.isnan(float(agent.rollouts))


def test_the_opponent_model_values_hand_cards_in_the_roll_outs_only_for_the_others() -> None:
    """``ohc0.1``: the other seats of a roll-out are heuristics that value a card in hand
    at 0.1 coins (opponents that keep their hand cards, as ``heuristic:hc0.1`` does); the
    search's own seat keeps its own value, and without the option the others value none.
    A bad value is a clear error."""
    from bohnanza.agents.search import HAND_CARD
    from bohnanza.errors import ConfigError

    modelled = make_agent("search:ohc0.1:hc0.3", 5)
    assert isinstance(modelled, SearchAgent)
    players = modelled.rollout_players(4, 2, 10, 7)
    assert [p.hand_card for p in players] == [0.1, 0.1, 0.3, 0.1]
    plain = make_agent("search", 5)
    assert isinstance(plain, SearchAgent)
    own = [p.hand_card for p in plain.rollout_players(4, 2, 10, 7)]
    assert own == [None, None, HAND_CARD, None]
    with pytest.raises(ConfigError, match="ohc"):
        make_agent("search:ohc-1", 5)


def test_search_with_the_opponent_model_is_reproducible() -> None:
    """The same seed gives the same choices with ``ohc0.1``, with or without the shared
    offer lists (the list's key holds the player's hand-card value)."""
    spec = "search:12ro:ohc0.1"
    first, agent = _log(spec, 12)
    assert agent.opponent_hand_card == 0.1
    assert _log(spec, 12)[0] == first
    assert _log(spec, 12, cache=False)[0] == first


def test_search_prune_is_a_spec_word_that_saves_roll_outs_reproducibly() -> None:
    """``search:prune`` drops alternatives that are past overruling the heuristic's choice
    (``valuesearch`` does it by default; tests/test_value.py checks the dropped ones
    against the full sampling): it drops some, the same seed gives the same choices,
    and ``noprune`` is ``search``'s default."""
    from bohnanza.agents.search import PRUNE_Z

    spec = "search:30ro:prune"
    first, agent = _log(spec, 12)
    assert agent.prune == PRUNE_Z and agent.pruned > 0
    assert _log(spec, 12)[0] == first
    plain = make_agent("search:noprune", 5)
    assert isinstance(plain, SearchAgent) and plain.prune is None
    default = make_agent("search", 5)
    assert isinstance(default, SearchAgent) and default.prune is None
