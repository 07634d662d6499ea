"""The ``heuristic`` and ``search`` bots: only legal actions in every rule set and module,
never a hidden card in what they are handed, determinisations built from the view alone,
and the play the issue asks of them (trading, gifts, harvests, bluffs, ladies)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bohnanza import Action, ActionType, Game, Offer, View
from bohnanza.agents import AGENTS, Agent, make_agent
from bohnanza.agents.heuristic import HeuristicAgent, Position, tables_for
from bohnanza.agents.search import Determiniser, SearchAgent, unseen_cards
from bohnanza.driver import PlayLog, play
from bohnanza.errors import ConfigError
from bohnanza.modules.fasolufka import move_lady
from bohnanza.rules import all_rulesets
from bohnanza.views import make_view

_T = ActionType


def configs() -> Iterator[tuple[str, int, dict[str, str]]]:
    """Every rule set and module at its smallest and largest player count."""
    for r in all_rulesets():
        for n in sorted({r["min_players"], r["max_players"], min(4, r["max_players"])}):
            options = {"remove": "glutton"} if r["options"] and n in (4, 5) else {}
            yield r["rules"], n, options


CONFIGS = list(configs())
#: The costlier cases run in the long mode (docs/testing.md).
LONG_MODE = pytest.mark.long


def tiny_search(seed: int) -> SearchAgent:
    """A search that overrules the heuristic on any positive mean (``z=0``), so that its
    alternatives reach the driver's legality check; one sample of one-turn roll-outs
    with one trading round keeps a whole game to a few seconds."""
    return SearchAgent(
        seed,
        seconds=None,
        iterations=1,
        depth=1,
        max_candidates=3,
        z=0.0,
        trade_rounds=1,
        trades_only=False,
    )


# ---------------------------------------------------------------------------- what bots see


def hidden_cards(game: Game, seat: int) -> set[int]:
    """Card ids ``seat`` may not see: other hands, the draw pile, every treasury (but its
    own in fasolufka, R-LADY-10), the discard pile below its top, cards out of the game."""
    out: set[int] = set(game.draw) | set(game.discard[:-1]) | set(game.out)
    for s in range(game.players):
        if s != seat or not game.hooks.own_treasury_visible:
            out.update(game.treasury[s])
        if s != seat:
            out.update(game.hands[s])
    # Cards offered from a hand may appear in a view only to their proposer.
    return out


def contains_game(value: Any, depth: int = 0) -> bool:
    if isinstance(value, Game):
        return True
    if depth > 6:
        return False
    if isinstance(value, dict):
        return any(contains_game(v, depth + 1) for v in value.values())
    if isinstance(value, (tuple, list, set, frozenset)):
        return any(contains_game(v, depth + 1) for v in value)
    return False


class Spy(Agent):
    """Test harness: hands the inner agent exactly what the driver gives and checks it.
    (The spy holds the game to compute what is hidden; the inner agent never sees it.)"""

    def __init__(self, inner: Agent, game: Game, seat: int, determinise_every: int = 0) -> None:
        super().__init__(inner.seed)
        self.inner = inner
        self.game = game
        self.seat = seat
        self.proposes = inner.proposes
        self.calls = 0
        self.every = determinise_every
        self.rng = random.Random(seat)

    def wants_offers(self, turn: int) -> bool:
        return self.inner.wants_offers(turn)

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        self.calls += 1
        assert type(view) is View and view.seat == self.seat
        assert not contains_game(tuple(view)) and not contains_game(list(legal))
        hidden = hidden_cards(self.game, self.seat)
        seen = view.visible_cards()
        assert not seen & hidden, f"seat {self.seat} sees hidden cards {seen & hidden}"
        for a in legal:
            ids = {c for c in (a.card, *a.cards) if c is not None}
            if a.offer is not None:
                ids.update(a.offer.give)
            assert not ids & hidden
        # What the seat cannot see is exactly what a determinisation deals at random.
        assert set(unseen_cards(view)) >= hidden
        if self.every and self.calls % self.every == 0:
            check_determinisation(view, self.rng)
        return self.inner.act(view, legal, required)


def check_determinisation(view: View, rng: random.Random) -> Game:
    """A sampled state keeps every card in one place and shows the seat its own view."""
    g = Determiniser(view).sample(rng)
    assert sorted(g.all_card_locations()) == list(range(view.config.deck_size))
    assert view.seat is not None
    assert make_view(g, view.seat) == view
    return g


def run(rules: str, players: int, options: dict[str, str], agents: Sequence[Agent], seed: int) -> tuple[Game, PlayLog]:  # fmt: skip
    game = Game.new(rules, players, options=options, seed=seed)
    return game, play(game, agents)


# ---------------------------------------------------------------------------- legality


@pytest.mark.parametrize(("rules", "players", "options"), CONFIGS)
def test_heuristic_plays_every_rule_set_legally_and_sees_no_hidden_card(
    rules: str, players: int, options: dict[str, str]
) -> None:
    # The driver checks every action that is not one of the listed legal ones (offers
    # the bot builds itself) and raises on an illegal one.
    game = Game.new(rules, players, options=options, seed=11)
    spies = [Spy(HeuristicAgent(s), game, s) for s in range(players)]
    log = play(game, spies)
    assert game.over and sum(s.calls for s in spies) > 0
    if players > 2:
        assert any(a.type is _T.PROPOSE for _, a in log.actions)


@pytest.mark.parametrize(
    ("rules", "players", "options"),
    [
        # classic and Fasolufka (a module with decisions) in the default mode, the rest in
        # the long mode (docs/testing.md)
        pytest.param(*c, marks=[] if c[0] in ("classic", "fasolki+fasolufka") else [LONG_MODE])
        for c in CONFIGS
        if c[1] == min(p for r, p, _ in CONFIGS if r == c[0])
    ],
)
def test_search_plays_every_rule_set_legally_and_sees_no_hidden_card(
    rules: str, players: int, options: dict[str, str]
) -> None:
    game = Game.new(rules, players, options=options, seed=5)
    search = tiny_search(1)
    agents: list[Agent] = [Spy(search, game, 0, determinise_every=7)]
    agents += [Spy(HeuristicAgent(s), game, s) for s in range(1, players)]
    play(game, agents)
    assert game.over and search.searched > 0


def test_registry_builds_the_bots() -> None:
    assert isinstance(make_agent("heuristic", 3), HeuristicAgent)
    assert isinstance(make_agent("search", 3), SearchAgent)
    assert {"heuristic", "search"} <= set(AGENTS)


# ---------------------------------------------------------------------------- determinisation


def mid_game(rules: str, players: int, seed: int, turns: int, options: dict[str, str] | None = None) -> Game:  # fmt: skip
    """A game played by heuristic bots until turn ``turns``, stopped at a decision."""

    class Stop(Exception):
        pass

    class Until(HeuristicAgent):
        def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
            if view.turn >= turns and view.phase == "plant":
                raise Stop
            return super().act(view, legal, required)

    game = Game.new(rules, players, options=options or {}, seed=seed)
    with pytest.raises(Stop):
        play(game, [Until(s) for s in range(players)])
    return game


def reshuffle_hidden(game: Game, seat: int, rng: random.Random) -> Game:
    """The same game for ``seat``: every card it cannot see moved to another hidden place."""
    g = game.clone()
    own_coins_seen = game.view(seat).treasury is not None  # fasolufka (R-LADY-10)
    treasuries = [t for s, t in enumerate(g.treasury) if s != seat or not own_coins_seen]
    places = [g.draw, g.discard, g.out, *treasuries]
    places += [g.hands[s] for s in range(g.players) if s != seat]
    cards = [c for p in places for c in (p[:-1] if p is g.discard else p)]
    rng.shuffle(cards)
    for p in places:
        keep = [p[-1]] if p is g.discard and p else []
        k = len(p) - len(keep)
        p[:] = [cards.pop() for _ in range(k)] + keep
    assert not cards
    g.invalidate_views()
    return g


@pytest.mark.parametrize(
    ("rules", "players"), [("classic", 4), ("fasolki+fasolufka", 3), ("fasolki+duel", 2)]
)
def test_search_uses_only_the_view(rules: str, players: int) -> None:
    """Two games that look the same to a seat but differ in every hidden card give the
    same determinisations and the same decision."""
    game = mid_game(rules, players, seed=3, turns=7)
    seat = game.active
    other = reshuffle_hidden(game, seat, random.Random(9))
    assert other.hands[(seat + 1) % players] != game.hands[(seat + 1) % players]
    v1, v2 = game.view(seat), other.view(seat)
    assert v1 == v2
    s1 = Determiniser(v1).sample(random.Random(4))
    s2 = Determiniser(v2).sample(random.Random(4))
    assert s1.to_dict() == s2.to_dict()
    a1 = SearchAgent(2, iterations=3, depth=2, trades_only=False).act(
        v1, game.legal_actions(seat), True
    )
    a2 = SearchAgent(2, iterations=3, depth=2, trades_only=False).act(
        v2, other.legal_actions(seat), True
    )
    assert a1 == a2


def test_determinisation_deals_offered_cards_into_the_proposers_hand() -> None:
    game = mid_game("fasolki+fasolkopajaki", 3, seed=8, turns=4)
    a = game.active
    while game.phase == "plant":
        game.apply(a, game.legal_actions(a)[0])
    cfg = game.config
    partner = (a + 1) % 3
    spider = next(
        c for c in range(cfg.deck_size)
        if cfg.card_kind[c] == "black" and c not in game.drawn and c not in game.hands[a]
    )  # fmt: skip
    put(game, spider, game.hands[partner])
    game.apply(partner, Action.propose(Offer(a, (spider,), (), ("red",))))
    view = game.view(a)
    (offer,) = view.offers
    assert offer.give == (None,) and offer.shown[0]["declared"] == "red"
    for k in range(20):
        g = check_determinisation(view, random.Random(k))
        (give,) = g.offers[offer.offer_id][1].give
        assert give in g.hands[partner] and cfg.variety_of(give) == "fasolkopajak"


# ---------------------------------------------------------------------------- how the heuristic plays


def put(game: Game, card: int, dest: list[int]) -> None:
    """Move ``card`` from wherever it is to the end of ``dest`` (state surgery for tests)."""
    for pile in (
        game.draw, game.discard, game.drawn, *game.hands, *game.trade, *game.treasury,
        *(f for fs in game.fields for f in fs),
    ):  # fmt: skip
        if card in pile:
            pile.remove(card)
            break
    dest.append(card)
    game.invalidate_views()


def cards_of(game: Game, variety: str) -> list[int]:
    return [c for c in range(game.config.deck_size) if game.config.variety_of(c) == variety]


def trade_phase(seed: int = 1) -> Game:
    game = Game.new("classic", 4, seed=seed)
    while game.phase == "plant":
        game.apply(0, game.legal_actions(0)[0])
    return game


def test_gives_away_a_drawn_card_it_cannot_use() -> None:
    game = trade_phase()
    for f in game.fields[0]:
        while f:
            game.discard.append(f.pop())
    for f in game.fields[1]:
        while f:
            game.discard.append(f.pop())
    chili, blue, red = cards_of(game, "chili"), cards_of(game, "blue"), cards_of(game, "red")
    for c in chili[:2]:
        put(game, c, game.fields[0][0])
    for c in blue[:3]:
        put(game, c, game.fields[0][1])
    for c in red[:2]:
        put(game, c, game.fields[1][0])
    while game.drawn:
        game.discard.append(game.drawn.pop())
    put(game, red[2], game.drawn)
    agent = HeuristicAgent(0)
    offers: list[Offer] = []
    for _ in range(6):  # one proposal each time it is asked
        choice = agent.act(game.view(0), game.legal_actions(0), False)
        if choice is None or choice.offer is None:
            break
        game.apply(0, choice)
        offers.append(choice.offer)
    # It offers the red card away (as a gift, or for a card it wants: what the other
    # hands hold depends on the deal).
    assert any(red[2] in o.give for o in offers)
    # Seat 1, which grows red beans, takes it as a gift (this one, or one of the open
    # gifts that also hold it).
    game.apply(0, Action.propose(Offer(1, (red[2],), ())))
    answer = HeuristicAgent(1).act(game.view(1), game.legal_actions(1), False)
    assert answer is not None and answer.type is _T.ACCEPT
    taken = next(o for o in game.view(1).offers if o.offer_id == answer.offer_id)
    assert red[2] in taken.give and not taken.want


def test_accepts_a_gift_that_fits_and_declines_one_that_ruins_a_field() -> None:
    game = trade_phase()
    soy, stink = cards_of(game, "soy"), cards_of(game, "stink")
    for f in game.fields[1]:
        while f:
            game.discard.append(f.pop())
    for c in soy[:3]:
        put(game, c, game.fields[1][0])
    for c in stink[:4]:
        put(game, c, game.fields[1][1])
    for card, accepted in ((soy[3], True), (cards_of(game, "wax")[0], False)):
        g = game.clone()
        put(g, card, g.hands[0])
        g.apply(0, Action.propose(Offer(1, (card,), ())))
        answer = HeuristicAgent(1).act(g.view(1), g.legal_actions(1), False)
        assert answer is not None
        assert answer.type is (_T.ACCEPT if accepted else _T.DECLINE)


def test_harvests_a_field_that_cannot_pay_more_out_of_turn() -> None:
    game = trade_phase()
    for f in game.fields[2]:
        while f:
            game.discard.append(f.pop())
    for c in cards_of(game, "garden")[:3]:  # 3 Garden beans pay 3: the most they can
        put(game, c, game.fields[2][0])
    choice = HeuristicAgent(2).act(game.view(2), game.legal_actions(2, False), False)
    assert choice == Action.harvest(0)


def test_declares_a_black_fasolkopajak_red_to_a_black_race() -> None:
    game = mid_game("fasolki+fasolkopajaki", 3, seed=2, turns=3)
    cfg = game.config
    black = [c for c in range(cfg.deck_size) if cfg.card_kind[c] == "black"]
    for f in game.fields[1]:
        while f:
            game.discard.append(f.pop())
    put(game, black[0], game.fields[1][0])
    put(game, black[1], game.hands[0])
    pos = Position(game.view(0), tables_for(cfg))
    agent = HeuristicAgent(0)
    assert agent._declare(pos, 1, black[1]) == ("red",)
    red = next(c for c in range(cfg.deck_size) if cfg.card_kind[c] == "red")
    put(game, red, game.hands[0])
    pos = Position(game.view(0), tables_for(cfg))
    assert agent._declare(pos, 1, red) == ()  # a red card is always declared red


def test_moves_a_lady_to_the_top_when_that_pays() -> None:
    game = Game.new("fasolki+fasolufka", 3, seed=4)
    cfg = game.config
    kinds = {
        k: [c for c in range(cfg.deck_size) if cfg.variety_of(c) == "cowboy" and cfg.card_kind[c] == k]
        for k in ("man", "lady", "child")
    }  # fmt: skip
    field = game.fields[0][0]
    lady = kinds["lady"][0]
    for c in (kinds["man"][0], lady, kinds["man"][1], kinds["man"][2]):
        put(game, c, field)
    hand = game.hands[0]
    put(game, kinds["child"][0], hand)
    hand.insert(0, hand.pop())
    game.apply(0, Action.plant(0))  # the child lands on the men and the lady
    assert game.pending is not None and game.pending.kind == "move_lady"
    choice = HeuristicAgent(0).act(game.view(0), game.legal_actions(0), True)
    assert choice == move_lady(lady)  # right under the child: the next one lifts her
    game.apply(0, choice)
    assert field[-2] == lady


def test_trades_between_heuristic_bots() -> None:
    accepted = 0
    for seed in range(3):
        _, log = run("classic", 4, {}, [HeuristicAgent(s) for s in range(4)], seed)
        accepted += sum(1 for _, a in log.actions if a.type is _T.ACCEPT)
    assert accepted >= 5


def test_bluffs_happen_in_play() -> None:
    """Some black Fasolkopajak is offered declared red (R-BLUFF-1). The heuristic bluffs
    rarely (about one game in a hundred), so the search is long."""
    for seed in range(150):
        game, log = run("fasolki+fasolkopajaki", 4, {}, [HeuristicAgent(s) for s in range(4)], seed)
        kind = game.config.card_kind
        for _, a in log.actions:
            if a.type is _T.PROPOSE and a.offer is not None and a.offer.declared:
                pairs = zip(a.offer.give, a.offer.declared, strict=True)
                if any(d == "red" and kind[c] == "black" for c, d in pairs):
                    return
    pytest.fail("no bluff in 150 games")


def test_search_answers_at_once_with_one_legal_action() -> None:
    agent = SearchAgent(0, seconds=30.0)
    game = Game.new("classic", 4, seed=1)
    only = [Action.plant(0)]
    assert agent.act(game.view(0), only, True) == only[0]
    assert agent.searched == 0


def test_search_respects_its_time_budget() -> None:
    import time

    game = mid_game("classic", 4, seed=6, turns=5)
    seat = game.active
    agent = SearchAgent(0, seconds=0.2, depth=1, trades_only=False)
    legal = game.legal_actions(seat)
    start = time.perf_counter()
    choice = agent.act(game.view(seat), legal, True)
    assert time.perf_counter() - start < 1.5
    assert choice in legal


def test_a_rollout_budget_is_shared_by_the_candidates() -> None:
    """``search:Nro``: N roll-outs a decision in all, at least three samples each: a
    choice between two actions gets more samples than one between four."""
    game = mid_game("classic", 4, seed=6, turns=5)
    seat = game.active
    view = game.view(seat)
    legal = [a for a in game.legal_actions(seat) if a.type is not _T.PROPOSE]
    assert len(legal) >= 2
    cands: list[Action | None] = [*legal, None][:5]
    for n in (2, len(cands)):
        samples = max(3, 12 // n)
        agent = make_agent("search:12ro:d1", 0)
        assert isinstance(agent, SearchAgent) and agent.rollout_budget == 12
        assert agent.search(view, cands[:n], cands[0]) in cands[:n]
        assert agent.rollouts == samples * n


def test_the_hand_valuing_leaf_sees_what_giving_a_hand_card_away_costs() -> None:
    """Without ``hand`` a roll-out cut short values coins and fields only, so a hand card
    given away (a trade, a gift) looks free; with it, the heuristic's plan for the hand
    counts: losing the Blue that would grow a Blue field lowers the seat's value."""
    from bohnanza.agents.search import position_value
    from bohnanza.testing.helpers import deal

    game = deal("classic", 4, [["blue", "blue", "red", "red", "soy"]], fields={0: [["blue", "blue"]]}, fill="wax")  # fmt: skip
    poorer = game.clone()
    poorer.discard.append(poorer.hands[0].pop(0))
    assert position_value(poorer, 0) == position_value(game, 0)
    assert position_value(poorer, 0, hand=True) < position_value(game, 0, hand=True) - 0.1


@pytest.mark.patches_engine
def test_a_search_that_never_overrules_plays_the_heuristics_game() -> None:
    """The search wraps its own ``heuristic`` faithfully (memory taken back only where it
    overrules it): with every search answering the heuristic's choice, the game is the
    heuristic's (its own: it buys the third field sooner, costs hand cards given away and
    trades more), action for action."""
    from bohnanza.agents.search import EPS, FIELD_GAIN, FORGET, HAND_CARD, WANTED

    logs = []
    for wrapped in (False, True):
        game = Game.new("classic", 4, seed=2)
        first: Agent = HeuristicAgent(
            7,
            field_gain=FIELD_GAIN,
            hand_card=HAND_CARD,
            wanted=WANTED,
            eps=EPS,
            forget=FORGET,
        )
        if wrapped:
            search = SearchAgent(7, iterations=1)
            search.search = lambda view, cands, default: default  # type: ignore[method-assign]
            first = search
        log = play(game, [first, *(HeuristicAgent(s) for s in range(1, 4))])
        logs.append((log.actions, game.scores))
    assert logs[0] == logs[1]


def trade_decision(seed: int) -> tuple[Game, int]:
    """A 4-player classic game played by heuristics up to a phase-2 decision of the active
    seat (it holds its two turned-up cards and may offer them to anyone)."""
    game = mid_game("classic", 4, seed=seed, turns=4)
    agents = [HeuristicAgent(s) for s in range(4)]
    while game.phase.name != "TRADE":
        seat = game.active if game.pending is None else game.pending.seat
        legal = game.legal_actions(seat)
        choice = agents[seat].act(game.view(seat), legal, True)
        assert choice is not None
        game.apply(seat, choice)
    return game, game.active


def test_a_wide_search_tries_more_offers_and_narrows_them_in_two_rounds() -> None:
    """``wide``: the search's heuristic lists more offers (more cards to give, more
    varieties to ask for) than the plain bot's, and the search plays every candidate on
    a first half of the roll-out budget, then only the heuristic's choice and the
    ``KEEP`` best on the second half."""
    from bohnanza.agents.search import KEEP

    game, seat = trade_decision(3)
    view = game.view(seat)
    legal = game.legal_actions(seat)
    plain = make_agent("search:60ro:turn", 0)
    wide = make_agent("search:60ro:turn:wide", 0)
    assert isinstance(plain, SearchAgent) and isinstance(wide, SearchAgent)
    assert wide.wide and wide.depth == 0 and not plain.wide
    plain.heuristic.act(view, legal, False)
    wide.heuristic.act(view, legal, False)
    offers = {o for _, o in wide.heuristic.offer_candidates()}
    assert {o for _, o in plain.heuristic.offer_candidates()} < offers
    default = wide.heuristic.act(view, legal, False)
    cands = wide.candidates(view, legal, False, default)
    n = len(cands)
    assert n > KEEP + 1 and cands[0] == default
    choice = wide.search(view, cands, default)
    assert choice in cands
    first, second = max(1, 60 // (2 * n)), max(3, 60 // (2 * (KEEP + 1)))
    assert wide.rollouts == first * n + second * (KEEP + 1)


def test_turn_rollouts_stop_at_the_end_of_the_turn() -> None:
    """``turn``: a roll-out plays the rest of the turn being decided (the partners'
    answers, the planting of traded cards, the active seat's draw) and no more."""
    from bohnanza.agents.search import _Rollout, _Stop

    game, _seat = trade_decision(5)
    turn = game.turn
    agents = [_Rollout(s, turn) for s in range(4)]
    with pytest.raises(_Stop):
        play(game, agents)
    assert game.turn == turn + 1 and not game.over
    assert all(len(game.hands[s]) > 0 for s in range(4))


@pytest.mark.parametrize(
    ("spec", "rules", "players", "seed"),
    [
        # every decision searched, trading with bluffs (Fasolkopajaki, R-BLUFF-1)
        pytest.param("search:1it:d1:z0:all", "fasolki+fasolkopajaki", 3, 4, marks=LONG_MODE),
        # the wide search's extra offers (ones the heuristic rated too low to make)
        pytest.param("search:1it:turn:wide:z0", "fasolki+fasolkopajaki", 3, 4, marks=LONG_MODE),
        # the eager search's offers where the heuristic makes none, in a module with
        # bluffs and one with coins
        pytest.param("search:1it:eager:z0", "fasolki+fasolkopajaki", 3, 4, marks=LONG_MODE),
        ("search:1it:eager:z0", "fasolki+fasolufka", 3, 4),
        # roll-outs played to the end of the game in the seat's last four turns (``end4``;
        # ``end99``, every decision of the game, took three minutes and tests no more)
        pytest.param("search:1it:end4:z0", "classic", 4, 6, marks=LONG_MODE),
    ],
)
def test_search_variants_games_pass_the_invariant_checker(
    spec: str, rules: str, players: int, seed: int
) -> None:
    """``bohnanza.testing``'s checker (no leak in any view or event, card conservation,
    every action legal, save/load, replay) over whole games in which the search, set to
    overrule the heuristic on any positive mean (``z0``), plays with each of its optional
    candidates and roll-out lengths. The checker's second play of the seed is left out (it
    doubles the time; test_determinise checks that fixed iterations are reproducible)."""
    from dataclasses import replace

    from bohnanza.testing import CHEAP, check_game

    checks = replace(CHEAP, determinism=False)
    stats = check_game(rules, players, seed, agents=[spec, "heuristic"], checks=checks)
    assert stats.actions > 0


def test_a_trade_only_search_plants_and_harvests_as_the_heuristic_does() -> None:
    """``trade``: outside phase 2 the only candidate is the heuristic's choice (nothing
    is searched); in phase 2 the alternatives are tried as usual."""
    game = mid_game("classic", 4, seed=6, turns=5)
    seat = game.active
    view = game.view(seat)
    legal = game.legal_actions(seat)
    assert view.phase.name != "TRADE" and len(legal) >= 2
    agent = make_agent("search:12ro:turn:trade", 0)
    assert isinstance(agent, SearchAgent) and agent.trades_only
    default = agent.heuristic.act(view, legal, True)
    assert agent.candidates(view, legal, True, default) == [default]
    everything = make_agent("search:12ro:turn:all", 0)
    assert isinstance(everything, SearchAgent)
    assert len(everything.candidates(view, legal, True, default)) >= 2
    game, seat = trade_decision(3)
    view = game.view(seat)
    legal = game.legal_actions(seat)
    default = agent.heuristic.act(view, legal, False)
    assert len(agent.candidates(view, legal, False, default)) >= 2


def test_the_default_search_is_the_measured_one() -> None:
    """``search`` with no parameters is ``search:60ro:turn:trade:hc0.2``, the
    configuration docs/bots.md measured best against three heuristic bots: 60 roll-outs a
    decision (reproducible, independent of the machine's speed), to the end of the turn,
    phase-2 decisions only, a card in hand worth 0.2 coins."""
    from bohnanza.agents.search import DEFAULT_ROLLOUTS

    agent = make_agent("search", 1)
    assert isinstance(agent, SearchAgent)
    assert agent.rollout_budget == DEFAULT_ROLLOUTS == 60
    assert (agent.seconds, agent.iterations, agent.depth) == (None, None, 0)
    assert agent.trades_only and not agent.wide and not agent.full
    assert agent.hand_card == agent.heuristic.hand_card == 0.2
    everything = make_agent("search:0.2:d2:all", 1)
    assert isinstance(everything, SearchAgent)
    assert (everything.seconds, everything.rollout_budget, everything.depth) == (0.2, None, 2)
    assert not everything.trades_only


def test_the_search_buys_its_third_field_sooner_than_the_heuristic() -> None:
    """R-FIELD-1, R-FIELD-2: the search's own play (``field_gain``, ``fg``) buys the third
    field when it expects it to add 0.9 of its coin rate, the heuristic when 0.38 of
    it; with 3 coins at turn 16 of this game, only the first pays the price."""
    from bohnanza.agents.search import FIELD_GAIN

    game = mid_game("classic", 4, seed=0, turns=16)
    seat = game.active
    assert len(game.fields[seat]) == 2
    need = 3 - len(game.treasury[seat])
    game.treasury[seat].extend(game.draw[:need])
    del game.draw[:need]
    view = game.view(seat)
    legal = game.legal_actions(seat)
    worth = Position(view, tables_for(view.config)).third_field_worth(1.0)
    assert 0.38 * worth < 3.5 <= FIELD_GAIN * worth  # the price (3) plus the margin
    buy = _T.BUY_FIELD
    assert HeuristicAgent(0).act(view, legal, True).type is not buy  # type: ignore[union-attr]
    sooner = HeuristicAgent(0, field_gain=FIELD_GAIN).act(view, legal, True)
    assert sooner is not None and sooner.type is buy
    search = make_agent("search", 0)
    assert isinstance(search, SearchAgent) and search.field_gain == FIELD_GAIN == 0.9
    choice = search.act(view, legal, True)
    assert choice is not None and choice.type is buy
    late = make_agent("search:fg0.38", 0)
    choice = late.act(view, legal, True)
    assert choice is not None and choice.type is not buy


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), turns=st.integers(0, 30))
def test_a_wary_heuristic_weighs_every_rivals_gain_at_least_as_much(seed: int, turns: int) -> None:
    """``rivalry``: a wary heuristic (:data:`WARY`, spec ``wary``) weighs a partner's gain
    by the partner's lead over everyone else as ``beta × clamp(1 + 0.5 × lead, 1, 4)``;
    the heuristic as ``beta × clamp(1 + 0.25 × lead, 0.5, 2)``. So the wary one never values
    a rival's coin less: it gives a trailer no discount and a leader twice the premium."""
    from bohnanza.agents.heuristic import WARY

    game = mid_game("classic", 4, seed=seed, turns=turns)
    me = game.active
    pos = Position(game.view(me), tables_for(game.config))
    mild, wary = HeuristicAgent(0), HeuristicAgent(0, rivalry=WARY)
    beta = 1 / 3
    for seat in range(4):
        if seat == me:
            continue
        lead = mild._standing(pos, seat)
        assert mild._weight(pos, seat) == pytest.approx(beta * min(2.0, max(0.5, 1 + 0.25 * lead)))
        assert wary._weight(pos, seat) == pytest.approx(beta * min(4.0, max(1.0, 1 + 0.5 * lead)))
        assert wary._weight(pos, seat) >= mild._weight(pos, seat)
        if lead < 0:
            assert wary._weight(pos, seat) == pytest.approx(beta)


def test_a_wary_search_plays_its_own_turns_and_rollout_seat_warily() -> None:
    """``search:wary`` weighs rivals as :data:`WARY` in its own play and in its seat of
    the roll-outs (the other roll-out seats stay the heuristic); ``mild``, the default,
    weighs as the heuristic; ``heuristic:wary`` is the heuristic with that weighing."""
    from bohnanza.agents.heuristic import WARY

    default = make_agent("search", 0)
    assert isinstance(default, SearchAgent) and default.rivalry is None
    assert default.heuristic.rivalry is None
    mild = make_agent("search:wary:mild", 0)
    assert isinstance(mild, SearchAgent) and mild.rivalry is None
    wary = make_agent("search:wary:60ro", 0)
    assert isinstance(wary, SearchAgent) and wary.rivalry == WARY
    assert wary.heuristic.rivalry == WARY
    wary.heuristic._refused[2] = 3.0  # something it learnt of seat 2
    made = wary.rollout_players(4, 1, 9, 11)
    assert [r.rivalry for r in made] == [None, WARY, None, None]
    assert [r.field_gain for r in made] == [None, 0.9, None, None]
    assert [r.chance(2) for r in made] == [1.0, 0.25, 1.0, 1.0]
    assert [r.rivalry for r in default.rollout_players(4, 1, 9, 11)] == [None] * 4
    h = make_agent("heuristic:fg0.9:wary", 0)
    assert isinstance(h, HeuristicAgent) and h.rivalry == WARY and h.field_gain == 0.9
    assert make_agent("heuristic", 0).rivalry is None  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="wary"):
        make_agent("heuristic:wry", 0)


def test_an_eager_search_tries_the_heuristics_untried_offers_where_it_passes() -> None:
    """``eager``: where the heuristic makes no offer (here: it made its one allowed offer
    and passes), the search still plays out the offers the heuristic listed and has not
    made; the default search keeps the pass and answers only what it is asked."""
    game, seat = trade_decision(3)
    view = game.view(seat)
    legal = game.legal_actions(seat)
    found: dict[bool, list[Action | None]] = {}
    made: dict[bool, Offer] = {}
    for eager in (False, True):
        agent = make_agent("search:eager" if eager else "search", 0)
        assert isinstance(agent, SearchAgent) and agent.eager is eager
        first = agent.heuristic.act(view, legal, False)
        assert first is not None and first.type is ActionType.PROPOSE and first.offer
        made[eager] = first.offer
        agent.heuristic.max_proposals = 1  # it has made its one offer: it passes now
        default = agent.heuristic.act(view, legal, False)
        assert default is None or default.type is ActionType.END_TRADING
        found[eager] = agent.candidates(view, legal, False, default)
        assert found[eager][0] == default
        listed = agent.heuristic.offer_candidates()
    assert made[False] == made[True]
    assert not [c for c in found[False] if c is not None and c.type is ActionType.PROPOSE]
    offered = [c.offer for c in found[True] if c is not None and c.type is ActionType.PROPOSE]
    untried = [o for score, o in listed if score > 0 and o != made[True]]
    assert offered and offered == untried[: len(offered)]
    assert made[True] not in offered


def test_an_eager_search_offers_only_what_it_may_offer_now() -> None:
    """The heuristic's list of offers may date from an earlier decision: an eager search
    keeps only offers to a partner the seat may trade with now (a seat that is not
    active trades with the active one only), of cards it holds, not made this turn."""
    game, active = trade_decision(3)
    me = (active + 1) % 4
    other = (active + 2) % 4
    view = game.view(me)
    agent = make_agent("search:eager", 0)
    assert isinstance(agent, SearchAgent)
    card = game.hands[me][0]
    assert agent._makeable(view, Offer(to=active, give=(card,)))
    assert not agent._makeable(view, Offer(to=other, give=(card,)))
    assert not agent._makeable(view, Offer(to=me, give=(card,)))
    foreign = game.hands[other][0]
    assert foreign not in game.hands[me]
    assert not agent._makeable(view, Offer(to=active, give=(foreign,)))
    agent.heuristic.record_proposal(Offer(to=active, give=(card,)))
    assert not agent._makeable(view, Offer(to=active, give=(card,)))
    drawn = game.view(active).drawn
    assert drawn and agent._makeable(game.view(active), Offer(to=me, give=(drawn[0],)))
    assert not agent._makeable(view, Offer(to=active, give=(drawn[0],)))


def test_an_endgame_search_plays_out_to_the_end_near_the_end() -> None:
    """``end2``: once the seat has two own turns left or fewer (the heuristic's estimate
    from the pile sizes), roll-outs play on to the end of the game (depth None) and are
    valued by the win; before that, and always without ``end``, to the end of the turn."""
    from bohnanza.agents.heuristic import turns_left

    late = make_agent("search:end2", 0)
    plain = make_agent("search", 0)
    assert isinstance(late, SearchAgent) and isinstance(plain, SearchAgent)
    assert late.endgame == 2.0 and plain.endgame == 0.0
    depths: dict[bool, set[int | None]] = {False: set(), True: set()}

    class Watching(HeuristicAgent):
        def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
            depths[turns_left(view) <= 2.0].add(late.rollout_depth(view))
            assert plain.rollout_depth(view) == 0
            return super().act(view, legal, required)

    play(Game.new("classic", 4, seed=5), [Watching(s) for s in range(4)])
    assert depths == {False: {0}, True: {None}}


def test_a_mean_search_values_a_rollout_against_all_rivals() -> None:
    """``mean``: a roll-out cut short is valued by the margin over the other seats' mean
    value, ``best`` (the default) over the best of them; both in coins × 0.2."""
    from bohnanza.agents.search import position_value, utility

    game = mid_game("classic", 4, seed=3, turns=9)
    values = [position_value(game, s, True) for s in range(4)]
    others = values[1:]
    assert utility(game, 0, True) == pytest.approx(0.2 * (values[0] - max(others)))
    assert utility(game, 0, True, mean=True) == pytest.approx(0.2 * (values[0] - sum(others) / 3))
    assert max(others) > sum(others) / 3  # the two differ here
    assert make_agent("search:mean", 0).mean and not make_agent("search", 0).mean  # type: ignore[attr-defined]


class Counting(Agent):
    """Test harness: a counting heuristic whose cards counted out are checked against the
    game at every decision (the harness holds the game; the bot sees only its views)."""

    def __init__(self, game: Game, seat: int) -> None:
        super().__init__(seat)
        self.inner = HeuristicAgent(seat, counting=True)
        self.game = game
        self.most = 0

    def wants_offers(self, turn: int) -> bool:
        return self.inner.wants_offers(turn)

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        choice = self.inner.act(view, legal, required)
        out = self.inner.out_of_reach(view)
        g = self.game
        reach = set(g.draw) | {c for s in range(g.players) for c in g.hands[s]}
        reach |= {c for s in range(g.players) for f in g.fields[s] for c in f}
        reach |= {c for s in range(g.players) for c in g.trade[s]} | set(g.drawn)
        assert len(out) == len(set(out)), "a card counted out twice"
        assert not reach & set(out), f"counted out but in play: {reach & set(out)}"
        self.most = max(self.most, len(out))
        return choice


@pytest.mark.parametrize(
    ("rules", "players"),
    [("classic", 4), ("fasolki+fasolkopajaki", 3), ("fasolki+fasolufka", 3), ("fasolki+duel", 2)],
)
def test_a_counting_heuristic_counts_out_only_cards_out_of_play(rules: str, players: int) -> None:
    """``counting`` (spec ``heuristic:count``): the cards the bot leaves out of its card
    counts are ones its memory saw go to the discard pile (R-HARV-2) or a
    treasury: at every decision of whole games none of them is in the draw pile, a hand,
    a field, a trade area or the turned-up cards, and none is counted twice; and by the
    middle of the game there are some (R-DECK-1 brings discards back: the memory
    forgets them at a shuffle)."""
    for seed in (1, 2):
        game = Game.new(rules, players, seed=seed)
        agents: list[Agent] = [HeuristicAgent(s) for s in range(players)]
        spy = Counting(game, 0)
        agents[0] = spy
        play(game, agents)
        assert game.over
        assert spy.most >= 10


def test_counted_out_cards_lower_the_chances_of_their_variety() -> None:
    """A field's chance of one more card of its variety comes from the cards of that
    variety that may still come: cards counted out (``Position(..., out)``) lower both
    the count and that chance, and leave other varieties' counts as they were."""
    game = mid_game("classic", 4, seed=3, turns=12)
    seat = game.active
    view = game.view(seat)
    t = tables_for(view.config)
    plain = Position(view, t)
    v = max(range(t.nv), key=lambda k: plain.avail[k])
    gone = [c for c in range(len(t.cv)) if t.cv[c] == v][:3]
    counted = Position(view, t, gone)
    assert counted.avail[v] == plain.avail[v] - 3
    assert counted.q[v] < plain.q[v]
    assert all(counted.avail[k] == plain.avail[k] for k in range(t.nv) if k != v)


def test_a_counting_search_shares_its_memory_with_its_own_play() -> None:
    """``search:count``: the search's heuristic (its own play) counts with the search's
    memory, which is updated once per decision, not twice; ``nocount`` and the plain
    heuristic keep no memory."""
    game = Game.new("classic", 4, seed=2)
    counting = make_agent("search:count:6ro", 0)
    assert isinstance(counting, SearchAgent) and counting.counting
    assert counting.heuristic.memory is counting.seen
    agents: list[Agent] = [counting] + [HeuristicAgent(s) for s in range(1, 4)]
    calls = 0

    class Count(Agent):
        def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
            nonlocal calls
            calls += 1
            return counting.act(view, legal, required)

        def wants_offers(self, turn: int) -> bool:
            return counting.wants_offers(turn)

    agents[0] = Count(0)
    play(game, agents)
    assert calls > 0 and counting.seen.views == calls
    plain = make_agent("search:nocount:6ro", 0)
    assert isinstance(plain, SearchAgent) and plain.heuristic.memory is None
    assert HeuristicAgent(0).memory is None
    h = make_agent("heuristic:count:fg0.9", 0)
    assert isinstance(h, HeuristicAgent) and h.memory is not None and h.field_gain == 0.9


def test_a_hand_card_given_away_costs_what_hand_card_says() -> None:
    """``hand_card``: a card given from the hand costs that much beyond the plan (one
    card fewer in hand at the end, where the most cards in hand break a tie on coins,
    R-END-4); a turned-up card given away costs nothing more, and the heuristic (0)
    values trades by the plan alone."""
    game, seat = trade_decision(3)
    view = game.view(seat)
    pos = Position(view, tables_for(view.config))
    plain, keeper = HeuristicAgent(0), HeuristicAgent(0, hand_card=0.4)
    assert view.hand and view.drawn
    for card in (view.hand[0], view.hand[-1]):
        assert keeper.trade_gain(pos, (card,), []) == pytest.approx(
            plain.trade_gain(pos, (card,), []) - 0.4
        )
    both = (view.hand[0], view.drawn[0])
    assert keeper.trade_gain(pos, both, []) == pytest.approx(plain.trade_gain(pos, both, []) - 0.4)
    drawn = (view.drawn[0],)
    assert keeper.trade_gain(pos, drawn, []) == pytest.approx(plain.trade_gain(pos, drawn, []))


def test_a_rollouts_end_values_every_seats_hand_cards_with_hand_card() -> None:
    """``search:hc0.3``: a roll-out cut short adds ``hand_card`` per card in hand to every
    seat's value before the margin over the best other seat is taken; its own play and
    its roll-out seat cost hand cards given away the same."""
    from bohnanza.agents.search import position_value, utility

    game = mid_game("classic", 4, seed=3, turns=9)
    values = [position_value(game, s, True) + 0.3 * len(game.hands[s]) for s in range(4)]
    assert utility(game, 0, True, hand_card=0.3) == pytest.approx(
        0.2 * (values[0] - max(values[1:]))
    )
    assert utility(game, 0, True) != pytest.approx(utility(game, 0, True, hand_card=0.3))
    agent = make_agent("search:hc0.3", 0)
    assert isinstance(agent, SearchAgent) and agent.hand_card == 0.3
    assert agent.heuristic.hand_card == 0.3
    assert [r.hand_card for r in agent.rollout_players(4, 2, 9, 1)] == [None, None, 0.3, None]
    off = make_agent("search:hc0", 0)
    assert isinstance(off, SearchAgent) and off.hand_card == 0.0
    assert utility(game, 0, True, hand_card=off.hand_card) == utility(game, 0, True)
