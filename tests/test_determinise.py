"""Determinisation for search (issue 12, issue 14's ``Game.determinise``): sampled full
states consistent with everything one seat knows - its view exactly, and what it
remembers of its earlier views (:class:`~bohnanza.determinise.SeenCards`) - built from
views alone (R-INFO-1…3: no hidden card leaks into a sample)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bohnanza import Action, Game, Offer, View
from bohnanza.agents import make_agent
from bohnanza.agents.heuristic import HeuristicAgent
from bohnanza.agents.search import SearchAgent
from bohnanza.determinise import Determiniser, SeenCards, _fits, unseen_cards
from bohnanza.driver import PlayLog, play
from bohnanza.testing.helpers import FASOLKI_FILL, TRADE, deal, plant, propose
from bohnanza.views import make_view
from test_bots import mid_game, reshuffle_hidden

#: Rule sets and player counts the property test draws from (every module).
CONFIGS = [
    ("classic", 4, {}),
    ("classic", 3, {}),
    ("first-edition", 5, {}),
    ("fasolki", 3, {}),
    ("fasolki+new-varieties", 4, {"remove": "glutton"}),
    ("fasolki+fasolkopajaki", 4, {}),
    ("fasolki+fasolufka", 3, {}),
    ("fasolki+duel", 2, {}),
]


def check_memory(game: Game, seat: int, seen: SeenCards) -> None:
    """What ``seen`` remembers is true of the real game (the harness reads the game;
    the memory never does)."""
    below = set(game.discard[:-1])
    left_play = below | set(game.out)
    for t in game.treasury:
        left_play |= set(t)
    assert seen.discard <= below, f"not in the discard pile: {seen.discard - below}"
    for s, cards in seen.treasury.items():
        assert cards <= set(game.treasury[s]), f"not in seat {s}'s treasury"
    assert seen.gone <= left_play, f"still in play: {seen.gone - left_play}"
    for s, claims in seen.claims.items():
        for claim, k in claims.items():
            held = sum(1 for c in game.hands[s] if _fits(game.config, c, claim))
            assert held >= k, f"seat {s} holds {held} cards shown as {claim}, not {k}"


def check_sample(view: View, seen: SeenCards | None, rng: random.Random) -> Game:
    """A sample is a valid state (every card once, R-SETUP), shows the seat exactly its
    view, and puts every remembered card where it is known to be."""
    det = Determiniser(view, seen)
    assert det.dropped == [], f"memory that did not fit the view: {det.dropped}"
    g = det.sample(rng, check=True)
    assert sorted(g.all_card_locations()) == list(range(view.config.deck_size))
    assert view.seat is not None
    assert make_view(g, view.seat) == view
    assert set(det.known_discard) <= set(g.discard[:-1])
    for s, cards in det.known_treasury.items():
        assert set(cards) <= set(g.treasury[s])
    elsewhere = set(g.discard[:-1]) | set(g.out)
    for t in g.treasury:
        elsewhere |= set(t)
    assert set(det.gone) <= elsewhere
    for s, claims in det.claims.items():
        for claim, k in claims.items():
            assert sum(1 for c in g.hands[s] if _fits(g.config, c, claim)) >= k
    return g


class Watcher(HeuristicAgent):
    """A heuristic seat that, at every decision of any seat (``every_view``) or only at
    its own, hands the watched seat's view to its memory, and checks memory and samples
    at every ``check_every``-th view (test harness: it holds the game)."""

    def __init__(self, seed: int, game: Game, watched: int, memory: SeenCards, every_view: bool, check_every: int) -> None:  # fmt: skip
        super().__init__(seed)
        self.game = game
        self.watched = watched
        self.memory = memory
        self.every_view = every_view
        self.check_every = check_every
        self.views = 0
        self.remembered = 0  # checks at which something was remembered
        self.rng = random.Random(seed)

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if self.every_view or view.seat == self.watched:
            mine = view if view.seat == self.watched else self.game.view(self.watched)
            self.memory.update(mine)
            self.views += 1
            if self.views % self.check_every == 0:
                check_memory(self.game, self.watched, self.memory)
                check_sample(mine, self.memory, self.rng)
                self.remembered += bool(self.memory.known() or self.memory.claims)
        return super().act(view, legal, required)


def watched_game(rules: str, players: int, options: dict[str, str], seed: int, every_view: bool, check_every: int) -> tuple[Game, SeenCards, list[Watcher]]:  # fmt: skip
    game = Game.new(rules, players, options=options, seed=seed)
    memory = SeenCards()
    watched = seed % players
    agents = [Watcher(s, game, watched, memory, every_view, check_every) for s in range(players)]
    play(game, agents)
    return game, memory, agents


# ---------------------------------------------------------------------------- valid states


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(
    config=st.sampled_from(CONFIGS),
    seed=st.integers(0, 10**6),
    every_view=st.booleans(),
)
def test_every_determinisation_is_valid_and_respects_the_memory(
    config: tuple[str, int, dict[str, str]], seed: int, every_view: bool
) -> None:
    """Over random seeded games of every rule set and module: what the seat remembers is
    true, and every sample keeps each card once, shows the seat its own view and puts the
    remembered cards where they are known to be."""
    rules, players, options = config
    game, _, agents = watched_game(rules, players, options, seed, every_view, check_every=5)
    assert game.over
    assert sum(a.views for a in agents) > 0


@pytest.mark.parametrize("rules", ["classic", "fasolki"])
def test_the_memory_learns_where_cards_went(rules: str) -> None:
    """In whole games the seat remembers cards that left play (harvests, R-HARV-2) and
    hand cards offered by others (R-TRADE-3), and samples place them accordingly."""
    game, _, agents = watched_game(rules, 4, {}, seed=5, every_view=False, check_every=3)
    assert game.over
    assert sum(a.remembered for a in agents) > 10


def trade_phase(rules: str, players: int, seed: int) -> Game:
    game = mid_game(rules, players, seed=seed, turns=6)
    a = game.active
    while game.phase == "plant":
        game.apply(a, game.legal_actions(a)[0])
    return game


def test_a_harvest_while_trading_puts_its_coins_in_the_treasury() -> None:
    """R-HARV-2: the top ``coins`` cards become coins, the rest go to the discard pile;
    seen while trading (no planting meanwhile) the seat knows which went where."""
    for seed in range(30):
        game = trade_phase("classic", 4, seed)
        me = game.active
        found = [
            (s, i)
            for s in range(4)
            if s != me
            for i, f in enumerate(game.fields[s])
            if game.view(me).seats[s].payouts[i] > 0 and game.is_legal(s, Action.harvest(i))
        ]
        if found:
            break
    else:
        pytest.fail("no paying field to harvest in 30 games")
    s, i = found[0]
    field = list(game.fields[s][i])
    coins = game.view(me).seats[s].payouts[i]
    memory = SeenCards()
    before = game.view(me)
    memory.update(before)
    game.apply(s, Action.harvest(i))
    view = game.view(me)
    memory.update(view)
    assert memory.treasury[s] == set(field[len(field) - coins :])
    # The rest lies in the discard pile, over the card that was on top before.
    assert memory.discard == (set(field[: len(field) - coins]) | {before.discard_top}) - {
        view.discard_top,
        None,
    }
    check_memory(game, me, memory)
    for k in range(10):
        g = check_sample(view, memory, random.Random(k))
        assert set(field[len(field) - coins :]) <= set(g.treasury[s])


def test_an_offered_hand_card_stays_in_the_hand_after_the_offer_lapses() -> None:
    """A card offered from a hand (its variety shown, R-TRADE-3) is still there once the
    offer is withdrawn; samples deal such a card into that hand."""
    game = trade_phase("classic", 4, seed=2)
    me = game.active
    other = (me + 1) % 4
    card = game.hands[other][-1]
    variety = game.config.variety_of(card)
    memory = SeenCards()
    game.apply(other, Action.propose(Offer(me, (card,), ())))
    memory.update(game.view(me))
    (offer,) = game.offers
    game.apply(other, Action.withdraw(offer))
    view = game.view(me)
    assert not view.offers
    memory.update(view)
    assert memory.claims[other] == Counter({(variety, ""): 1})
    for k in range(20):
        g = check_sample(view, memory, random.Random(k))
        assert any(game.config.variety_of(c) == variety for c in g.hands[other])
    without = Determiniser(view)
    assert any(
        not any(game.config.variety_of(c) == variety for c in without.sample(random.Random(k)).hands[other])
        for k in range(200)
    )  # fmt: skip


def test_the_memory_forgets_the_discard_pile_when_it_is_shuffled() -> None:
    """R-DECK-1: a reshuffle turns the discard pile into the draw pile; what was known to
    be in it may now be anywhere."""
    memory = SeenCards()
    game = Game.new("classic", 4, seed=4)
    seat = 0
    runouts = 0
    forgot = False

    class Eye(HeuristicAgent):
        def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
            nonlocal runouts, forgot
            v = game.view(seat)
            before = len(memory.discard) + len(memory.gone)
            memory.update(v)
            if v.runouts > runouts and v.draw_size > 0:
                runouts = v.runouts
                forgot = forgot or (before > 0 and not memory.discard and not memory.gone)
            check_memory(game, seat, memory)
            return super().act(view, legal, required)

    play(game, [Eye(s) for s in range(4)])
    assert runouts >= 1 and forgot


# ---------------------------------------------------------------------------- no leak


@pytest.mark.parametrize(
    ("rules", "players"), [("classic", 4), ("fasolki+fasolufka", 3), ("fasolki+duel", 2)]
)
def test_determinisation_depends_on_the_views_only(rules: str, players: int) -> None:
    """Two games that look the same to the seat but differ in every hidden card give the
    same samples, with the same memory of the seat's earlier views: nothing beyond what
    was seen reaches a sample (R-INFO-1/2)."""
    game = Game.new(rules, players, seed=3)
    seat = 0
    memory = SeenCards()

    class Stop(Exception):
        pass

    class Eye(HeuristicAgent):
        def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
            if view.turn >= 9 and view.phase == "plant":
                raise Stop
            memory.update(game.view(seat))
            return super().act(view, legal, required)

    with pytest.raises(Stop):
        play(game, [Eye(s) for s in range(players)])
    memory.update(game.view(seat))
    other = reshuffle_hidden(game, seat, random.Random(9))
    assert other.hands[1] != game.hands[1]
    v1, v2 = game.view(seat), other.view(seat)
    assert v1 == v2
    for k in range(5):
        s1 = Game.determinise(v1, random.Random(k), memory)
        s2 = Game.determinise(v2, random.Random(k), memory)
        assert s1.to_dict() == s2.to_dict()
    # And the real hidden hands are not favoured: their cards turn up in the sampled
    # hand no more often than in the sampled hands of the reshuffled game's seat.
    real = Counter()
    for k in range(200):
        g = Game.determinise(v1, random.Random(1000 + k), memory)
        real["game"] += len(set(g.hands[1]) & set(game.hands[1]))
        real["other"] += len(set(g.hands[1]) & set(other.hands[1]))
    assert real["game"] < 1.5 * real["other"] + 40


def test_game_determinise_is_reproducible_and_needs_a_seat() -> None:
    game = mid_game("classic", 4, seed=7, turns=5)
    view = game.view(game.active)
    a = Game.determinise(view, random.Random(3))
    b = Game.determinise(view, random.Random(3))
    assert a.to_dict() == b.to_dict()
    assert a.to_dict() != Game.determinise(view, random.Random(4)).to_dict()
    with pytest.raises(ValueError, match="spectator"):
        Game.determinise(game.view(None), random.Random(3))


# ---------------------------------------------------------------------------- the search bot


def test_search_with_fixed_iterations_is_reproducible() -> None:
    """``search:Nit`` does not depend on the machine's speed: the same seed gives the
    same choices (and the search remembers what it saw while playing)."""

    class Stop(Exception):
        pass

    class Until(HeuristicAgent):
        def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
            if view.turn > 6:
                raise Stop
            return super().act(view, legal, required)

    def game_log(seed: int) -> list[tuple[int, Action]]:
        game = Game.new("classic", 4, seed=seed)
        search = make_agent("search:3it:d1", 5)
        assert isinstance(search, SearchAgent) and search.iterations == 3
        log = PlayLog()
        with pytest.raises(Stop):
            play(game, [search, *(Until(s) for s in range(1, 4))], log=log)
        assert search.searched > 0 and search.seen.views > 0
        return log.actions

    first = game_log(12)
    assert game_log(12) == first


def test_search_rollouts_play_every_seat_with_the_trading_heuristic() -> None:
    """The opponents of a roll-out are the trading heuristic (no write-off, no
    ``autarky`` stand-in), also for a seat that declined every offer so far."""
    import bohnanza.agents.search as search_module

    assert not hasattr(search_module, "_Autarky")
    assert issubclass(search_module._Rollout, HeuristicAgent)


def test_a_black_claim_gets_a_black_card_before_a_red_claim_takes_one() -> None:
    """R-BLUFF-1: a hand card declared black is black; one declared red may be red or a
    black one. With one red and one black Fasolkopajak left unseen, a red claim dealt
    first could take the black card and leave the black claim none: the sample deals
    the stricter claims first (the active seat's own offers too: it is seat 0 here)."""
    spiders = ["fasolkopajak/red"] * 2 + ["fasolkopajak/black"] * 2
    game = deal(
        "fasolki+fasolkopajaki",
        3,
        [["cowboy", *spiders], ["fasolkopajak/black"], ["fasolkopajak/red"]],
        fill=FASOLKI_FILL,
    )
    plant(game, 0)
    assert game.phase == TRADE
    cfg = game.config
    red, black = game.hands[2][0], game.hands[1][0]
    assert cfg.card_kind[red] == "red" and cfg.card_kind[black] == "black"
    first = propose(game, 2, Offer(0, (red,), (), ("red",)))
    propose(game, 1, Offer(0, (black,), (), ("black",)))
    view = game.view(0)
    unseen_spiders = [c for c in unseen_cards(view) if cfg.variety_of(c) == "fasolkopajak"]
    assert sorted(unseen_spiders) == sorted([red, black])
    for k in range(30):
        g = check_sample(view, None, random.Random(k))
        assert black in g.hands[1] and red in g.hands[2]
        assert g.offers[first][1].give == (red,)
    # The memory keeps both claims once the offers are gone, with the same result.
    memory = SeenCards()
    memory.update(view)
    for oid in list(game.offers):
        game.apply(game.offers[oid][0], Action.withdraw(oid))
    later = game.view(0)
    memory.update(later)
    assert memory.claims == {
        1: Counter({("fasolkopajak", "black"): 1}),
        2: Counter({("fasolkopajak", "red"): 1}),
    }
    for k in range(30):
        g = check_sample(later, memory, random.Random(k))
        assert black in g.hands[1] and red in g.hands[2]


def test_an_offer_of_a_black_and_a_red_declaration_needs_two_cards() -> None:
    """Two hand cards of one offer are distinct cards: shown as black and as red, the
    hand holds two Fasolkopajaks that fit a red declaration, one of them black."""
    game = deal(
        "fasolki+fasolkopajaki",
        3,
        [["cowboy"], ["fasolkopajak/black", "fasolkopajak/red"]],
        fill=FASOLKI_FILL,
    )
    plant(game, 0)
    b, r = game.hands[1][0], game.hands[1][1]
    propose(game, 1, Offer(0, (b, r), (), ("black", "red")))
    view = game.view(0)
    memory = SeenCards()
    memory.update(view)
    assert memory.claims[1] == Counter({("fasolkopajak", "black"): 1, ("fasolkopajak", "red"): 2})
    cfg = game.config
    for k in range(20):
        g = check_sample(view, memory, random.Random(k))
        spiders = [c for c in g.hands[1] if cfg.variety_of(c) == "fasolkopajak"]
        assert len(spiders) >= 2 and any(cfg.card_kind[c] == "black" for c in spiders)
