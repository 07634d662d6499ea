"""The trading blunders of ``heuristic-v1`` that the new ``heuristic`` fixes (issue 12):
writing partners off after three declines, the active seat spending its rounds
declining, repeating an offer with other card ids, one-card offers only; and the probe
bots and default bots that come with it."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import pytest

from bohnanza import Action, ActionType, Game
from bohnanza.actions import Offer
from bohnanza.agents import AGENTS, DEFAULT_BOT, DESCRIPTIONS, Agent, make_agent
from bohnanza.agents.heuristic import HeuristicAgent, Position, _tops, tables_for, turns_left
from bohnanza.agents.search import SearchAgent
from bohnanza.driver import play
from bohnanza.seeding import agent_seed
from scripts import load_script
from test_bots import CONFIGS, Spy, cards_of, put, trade_phase

_T = ActionType


def trading_actions(seed: int, lineup: Sequence[str]) -> list[tuple[int, int, int, Action]]:
    """(turn, active seat, acting seat, action) for every phase-2 action of one game."""
    game = Game.new("classic", len(lineup), seed=seed)
    bots = [make_agent(a, agent_seed(seed, k)) for k, a in enumerate(lineup)]
    out: list[tuple[int, int, int, Action]] = []

    class Watch(Agent):
        def __init__(self, inner: Agent) -> None:
            super().__init__(inner.seed)
            self.inner = inner
            self.proposes = inner.proposes

        def wants_offers(self, turn: int) -> bool:
            return self.inner.wants_offers(turn)

        def act(self, view: Any, legal: Sequence[Action], required: bool) -> Action | None:
            choice = self.inner.act(view, legal, required)
            if choice is not None and view.phase == "trade" and view.pending is None:
                out.append((view.turn, view.active, view.seat, choice))
            return choice

    play(game, [Watch(b) for b in bots])
    return out


# ---------------------------------------------------------------------------- write-offs


def test_keeps_offering_to_seats_that_declined_three_times() -> None:
    """v1 stops offering to a seat after three declines and no acceptance; against three
    ``autarky`` seats (which decline everything) it soon makes no offers at all. The new
    bot's refusals fade, so it still tries in the second half of the game."""
    late: dict[str, int] = {}
    for bot in ("heuristic-v1", "heuristic"):
        late[bot] = 0
        for seed in range(3):
            acts = trading_actions(seed, [bot, "autarky", "autarky", "autarky"])
            last = max(t for t, *_ in acts)
            late[bot] += sum(
                1 for t, _, seat, a in acts if seat == 0 and a.type is _T.PROPOSE and t > last // 2
            )
    assert late["heuristic-v1"] == 0
    assert late["heuristic"] >= 10


def test_refusals_fade_but_acceptances_count() -> None:
    bot = HeuristicAgent(0)
    game = trade_phase()
    bot.act(game.view(0), game.legal_actions(0), False)
    first = bot.chance(1)
    bot._refused[1] = bot._refused[2] = 3.0
    bot._accepted[2] = 1.0  # seat 2 also took one of our offers
    assert 0 < bot.chance(1) < bot.chance(2) < first
    # A later turn: the refusals count less (the seat is asked again).
    view = game.view(0)
    bot._new_turn(view._replace(turn=view.turn + 1))
    assert bot.chance(1) > 1 / (1 + 3.0)
    assert bot.trades_with(1)


def test_forget_sets_how_fast_a_refusal_fades() -> None:
    game = trade_phase()
    view = game.view(0)
    later = view._replace(turn=view.turn + 1)
    faded = {}
    for forget in (None, 0.6):
        bot = HeuristicAgent(0, forget=forget)
        bot._turn = view.turn
        bot._refused[1] = 1.0
        bot._tops[1] = _tops(view, 1)  # the seat's fields did not change since
        bot._new_turn(later)
        faded[forget] = bot._refused[1]
    assert faded == {None: pytest.approx(0.85), 0.6: pytest.approx(0.6)}


def test_the_trading_settings_play_as_the_constants_they_stand_for() -> None:
    """``eps`` and ``forget`` replace every use of :data:`EPS` and :data:`FORGET` for one
    bot: the same games as the screen's bot with the module's constants swapped while it
    decides (benchmarks/policy_screen.py, where the settings were found), and not the
    games of the plain heuristic."""
    screen = load_script("benchmarks/policy_screen.py")
    differ = 0
    for seed in range(3):
        logs = []
        for first in (
            HeuristicAgent(agent_seed(seed, 0), wanted=3, eps=0.0, forget=0.6),
            screen.Changed(agent_seed(seed, 0), {"EPS": 0.0, "FORGET": 0.6}, wanted=3),
            HeuristicAgent(agent_seed(seed, 0)),
        ):
            bots = [first] + [HeuristicAgent(agent_seed(seed, k)) for k in range(1, 4)]
            logs.append(play(Game.new("classic", 4, seed=seed), bots).actions)
        assert logs[0] == logs[1]
        differ += logs[0] != logs[2]
    assert differ


# ---------------------------------------------------------------------------- active seat


def test_the_active_seat_proposes_and_never_spends_a_round_declining() -> None:
    declines = {"heuristic-v1": 0, "heuristic": 0}
    proposals = {"heuristic-v1": 0, "heuristic": 0}
    for bot in declines:
        for seed in range(2):
            for _, active, seat, a in trading_actions(seed, [bot] * 4):
                if seat == active:
                    declines[bot] += a.type is _T.DECLINE
                    proposals[bot] += a.type is _T.PROPOSE
    assert declines["heuristic-v1"] > 0  # the blunder the issue measured
    assert declines["heuristic"] == 0
    assert proposals["heuristic"] > proposals["heuristic-v1"]


def test_active_seat_proposes_instead_of_declining_a_bad_offer() -> None:
    game = trade_phase()
    # Seat 1 offers seat 0 a card that seat 0 does not want.
    bad = game.legal_actions(1, True)
    proposals = [a for a in bad if a.type is _T.PROPOSE and a.offer is not None and a.offer.to == 0]
    assert proposals
    game.apply(1, proposals[0])
    choice = HeuristicAgent(0).act(game.view(0), game.legal_actions(0), False)
    assert choice is None or choice.type is not _T.DECLINE


# ---------------------------------------------------------------------------- offers


def test_no_offer_kind_is_repeated_in_a_turn() -> None:
    cv = Game.new("classic", 4).config.card_variety
    for seed in range(3):
        seen: dict[tuple[int, int], set[Any]] = defaultdict(set)
        for turn, _, seat, a in trading_actions(seed, ["heuristic"] * 4):
            if a.type is not _T.PROPOSE or a.offer is None:
                continue
            o = a.offer
            kind = (o.to, tuple(sorted(cv[c] for c in o.give)), o.want, o.declared)
            assert kind not in seen[(turn, seat)], f"seed {seed} turn {turn}: {o} repeated"
            seen[(turn, seat)].add(kind)


def test_offers_both_drawn_cards_as_a_package_to_the_seat_that_grows_them() -> None:
    """Seat 0 turns up two green beans it cannot use (they would replace its chili
    field); seat 1 grows green. The best offer hands over both at once."""
    game = trade_phase()
    for s in range(4):
        for f in game.fields[s]:
            while f:
                game.discard.append(f.pop())
    chili, blue, green = cards_of(game, "chili"), cards_of(game, "blue"), cards_of(game, "green")
    soy, stink, wax, red = (cards_of(game, v) for v in ("soy", "stink", "wax", "red"))
    for cards, field in (
        (chili[:2], game.fields[0][0]), (blue[:3], game.fields[0][1]),
        (green[:3], game.fields[1][0]), (soy[:3], game.fields[2][0]),
        (stink[:3], game.fields[2][1]), (wax[:3], game.fields[3][0]), (red[:1], game.fields[3][1]),
    ):  # fmt: skip
        for c in cards:
            put(game, c, field)
    while game.drawn:
        game.discard.append(game.drawn.pop())
    put(game, green[3], game.drawn)
    put(game, green[4], game.drawn)
    game.hands[0][:] = []
    for c in blue[3:6]:
        put(game, c, game.hands[0])
    # The other hands are fixed too (not left to the deal): only seat 1 holds a chili.
    for seat, cards in ((1, (chili[2], soy[3])), (2, (wax[3],)), (3, (stink[3],))):
        game.discard.extend(game.hands[seat])
        game.hands[seat][:] = []
        for c in cards:
            put(game, c, game.hands[seat])
    choice = HeuristicAgent(0).act(game.view(0), game.legal_actions(0), False)
    assert choice is not None and choice.offer is not None
    assert choice.offer.to == 1 and set(choice.offer.give) == {green[3], green[4]}
    # Seat 1 takes the package.
    oid = game.next_offer_id
    game.apply(0, choice)
    answer = HeuristicAgent(1).act(game.view(1), game.legal_actions(1), False)
    assert answer is not None and answer.type is _T.ACCEPT and answer.offer_id == oid


def test_multi_card_offers_happen_in_play() -> None:
    two = 0
    for seed in range(2):
        for _, _, _, a in trading_actions(seed, ["heuristic"] * 4):
            if a.type is _T.PROPOSE and a.offer is not None:
                two += len(a.offer.give) >= 2 or any(n >= 2 for _, n in a.offer.want)
    assert two >= 5


def test_refuses_to_hand_the_leader_a_coin_at_the_end() -> None:
    game = trade_phase()
    bot = HeuristicAgent(0)
    bot.act(game.view(0), game.legal_actions(0), False)
    view = game.view(0)
    pos = Position(view, tables_for(view.config))
    assert not bot._feeds_leader(pos, 1, 2.0)  # early in the game: allowed
    game.treasury[1].extend(game.draw[:5])
    del game.draw[:5]
    game.final_runout = True  # the last cards: nobody has turns left
    view = game.view(0)
    pos = Position(view, tables_for(view.config))
    # Seat 1 leads by 5 coins: the sole leader is judged by the no-kingmaking rule
    # (issue 36), which refuses unless the trade brings seat 0 level with it; the
    # old play (``kingmaking``) refuses it outright.
    assert not bot._feeds_leader(pos, 1, 2.0) and bot._kingmaker(pos, 1, 2.0, 0.0)
    assert HeuristicAgent(0, kingmaking=True)._feeds_leader(pos, 1, 2.0)
    assert not bot._feeds_leader(pos, 2, 2.0)  # seat 2 does not lead
    assert not bot._kingmaker(pos, 2, 2.0, 0.0)
    assert bot._weight(pos, 1) > bot._weight(pos, 2)


def test_a_plan_may_hold_more_stand_ins_than_a_variety_has_cards() -> None:
    """Asking for two cards of a variety whose other cards sit in the hand or on the
    field plans a field longer than the variety: it is valued at its top payout (it
    used to index past the field-value table and crash the bot mid-game)."""
    game = trade_phase()
    view = game.view(0)
    t = tables_for(view.config)
    pos = Position(view, t)
    v = min(range(t.nv), key=lambda k: t.total[k])
    card = next(c for c in range(len(t.cv)) if t.cv[c] == v)
    top = float(t.pay[v][-1])
    for n in (t.total[v], t.total[v] + 1, t.total[v] + 3):
        assert pos.fv(v, n) == top
    # A plan that plants them all runs through (harvesting and starting again counts).
    assert math.isfinite(pos.plan([[], []], [card] * (t.total[v] + 3), []))


# ---------------------------------------------------------------------------- every bot


@pytest.mark.parametrize("bot", ["probe-accept", "probe-spam", "probe-shy"])
@pytest.mark.parametrize(("rules", "players", "options"), [c for c in CONFIGS if 2 < c[1] <= 4])
def test_new_bots_play_legally_and_see_no_hidden_card(
    bot: str, rules: str, players: int, options: dict[str, str]
) -> None:
    # (``heuristic`` itself: tests/test_bots.py; the probes differ from it only in
    # trading, so 2-player duels are left out.)
    game = Game.new(rules, players, options=options, seed=23)
    line = [bot, "heuristic", "heuristic-v1", "heuristic"][:players]
    spies = [Spy(make_agent(n, s), game, s) for s, n in enumerate(line)]
    play(game, spies)
    assert game.over


def test_every_bot_has_a_description_and_the_default_trades() -> None:
    assert set(DESCRIPTIONS) == set(AGENTS)
    assert DEFAULT_BOT == "heuristic" and make_agent(DEFAULT_BOT).proposes


@pytest.mark.parametrize("command", [["play"], ["tournament"], ["simulate"]])
def test_help_lists_every_bot_with_its_description(command: list[str]) -> None:
    from click.testing import CliRunner

    from bohnanza.cli import main

    text = " ".join(
        CliRunner().invoke(main, [*command, "--help"], terminal_width=1000).output.split()
    )
    for name, line in DESCRIPTIONS.items():
        assert f"{name}: {line}" in text
    if command == ["play"]:
        assert "[default: heuristic]" in text


def kingmaking_position(late: bool, lead: int) -> Game:
    """Seat 0, active, leads by ``lead`` coins and grows Red (3 cards); seat 1 grows
    Blue (3) and Chili (2) and holds a Red. Seat 0 offers a drawn Blue for a Red: each
    side's field pays one coin more. ``late``: the last cards of the last run-out."""
    game = trade_phase()
    for s in (0, 1):
        for f in game.fields[s]:
            while f:
                game.discard.append(f.pop())
    red, blue, chili = cards_of(game, "red"), cards_of(game, "blue"), cards_of(game, "chili")
    for c in red[:3]:
        put(game, c, game.fields[0][0])
    for c in blue[:3]:
        put(game, c, game.fields[1][0])
    for c in chili[:2]:
        put(game, c, game.fields[1][1])
    put(game, red[3], game.hands[1])
    while game.drawn:
        game.draw.append(game.drawn.pop())
    put(game, blue[3], game.drawn)
    put(game, blue[4], game.drawn)
    spare = [c for c in game.draw if c not in red + blue]
    for c in spare[: lead + 2]:
        put(game, c, game.treasury[0])
    for c in spare[lead + 2 : lead + 4]:
        put(game, c, game.treasury[1])
    if late:
        game.runouts = game.config.runouts_to_end - 1
        while len(game.draw) > 6:
            game.discard.append(game.draw.pop())
    game.invalidate_views()
    game.apply(0, Action.propose(Offer(1, (blue[3],), (("red", 1),))))
    return game


def test_a_trailing_seat_does_not_make_the_leader_king_late() -> None:
    """Issue 36: late in the game a seat far behind declines a trade that gives the
    sole leader a coin (it cannot win by it); earlier the same trade is accepted."""
    early = kingmaking_position(late=False, lead=12)
    choice = HeuristicAgent(1).act(early.view(1), early.legal_actions(1), False)
    assert choice is not None and choice.type is _T.ACCEPT
    late = kingmaking_position(late=True, lead=12)
    view = late.view(1)
    assert turns_left(view) < 1.0
    choice = HeuristicAgent(1).act(view, late.legal_actions(1), False)
    assert choice == Action.decline(next(iter(late.offers)))
    # The search does not list the kingmaking answer among its candidates either.
    search = SearchAgent(1)
    search.heuristic.act(view, late.legal_actions(1), False)
    accepts = [a for a in late.legal_actions(1) if a.type is _T.ACCEPT]
    assert accepts and all(search.heuristic.makes_king(view, a) for a in accepts)
    assert not any(
        c is not None and c.type is _T.ACCEPT
        for c in search.candidates(view, late.legal_actions(1), False, None)
    )


def test_a_trade_that_brings_the_trailer_level_with_the_leader_is_allowed() -> None:
    late = kingmaking_position(late=True, lead=12)
    view = late.view(1)
    pos = Position(view, tables_for(view.config))
    bot = HeuristicAgent(1)
    assert bot._kingmaker(pos, 0, 1.0, 3.0)  # 12 coins behind: still far behind
    close = kingmaking_position(late=True, lead=1)
    view = close.view(1)
    pos = Position(view, tables_for(view.config))
    assert bot._kingmaker(pos, 0, 1.0, 1.0)  # no closer to the leader
    assert not bot._kingmaker(pos, 0, 1.0, 3.0)  # catches the leader up
    assert not bot._kingmaker(pos, 2, 1.0, 0.0)  # seat 2 does not lead


def feeding_position(late: bool, lead: int) -> Game:
    """Seat 0, active, leads by ``lead`` coins, grows Red (3 cards) and Chili (1) and
    holds a Chili; seat 1 grows Blue (3) and Chili (1), holds a Red, and may offer seat 0
    its Red for a Chili: the leader's Red field pays a coin more, and the Chili it gives comes from
    its hand. ``late``: the last cards of the last run-out."""
    game = trade_phase()
    for s in (0, 1):
        for f in game.fields[s]:
            while f:
                game.discard.append(f.pop())
    red, blue, chili = cards_of(game, "red"), cards_of(game, "blue"), cards_of(game, "chili")
    for c in red[:3]:
        put(game, c, game.fields[0][0])
    put(game, chili[0], game.fields[0][1])
    for c in blue[:3]:
        put(game, c, game.fields[1][0])
    put(game, chili[2], game.fields[1][1])
    while game.hands[1]:
        game.draw.append(game.hands[1].pop())
    while game.drawn:
        game.draw.append(game.drawn.pop())
    put(game, blue[3], game.hands[1])
    put(game, red[3], game.hands[1])
    put(game, chili[1], game.hands[0])
    garden, soy = cards_of(game, "garden"), cards_of(game, "soy")
    put(game, garden[0], game.drawn)
    put(game, soy[0], game.drawn)
    spare = [c for c in game.draw if c not in red + blue + chili + garden + soy]
    for c in spare[: lead + 2]:
        put(game, c, game.treasury[0])
    for c in spare[lead + 2 : lead + 4]:
        put(game, c, game.treasury[1])
    if late:
        game.runouts = game.config.runouts_to_end - 1
        while len(game.draw) > 6:
            game.discard.append(game.draw.pop())
    game.invalidate_views()
    return game


def test_a_trailing_seat_does_not_offer_the_leader_a_swap_that_feeds_it() -> None:
    """Issue 53: the rule judged a swap by the leader's gain less a coin for each card
    asked of a variety it grows, so a Red for a Chili from the leader's hand (its Red
    field pays a coin more) came to nothing and passed; the rule weighs what the
    leader's fields gain. Earlier in the game, or to a seat that does not lead, the
    same swap is offered."""

    def swaps_to_leader(game: Game) -> list[Offer]:
        view = game.view(1)
        bot = HeuristicAgent(1)
        red = next(
            c for c in game.hands[1] if view.config.varieties[view.config.card_variety[c]] == "red"
        )
        cands = bot._candidates(Position(view, tables_for(view.config)), (0,))
        return [o for _s, o in cands if o.to == 0 and red in o.give and o.want]

    assert swaps_to_leader(feeding_position(late=False, lead=12))
    late = feeding_position(late=True, lead=12)
    assert turns_left(late.view(1)) < 1.0
    assert not swaps_to_leader(late)
    # The same, late, when seat 2 leads: seat 0 is no king to make.
    behind = feeding_position(late=True, lead=12)
    spare = list(behind.draw[:4])
    for c in spare:
        behind.draw.remove(c)
    behind.treasury[2] += behind.treasury[0] + spare
    behind.treasury[0] = []
    behind.invalidate_views()
    assert swaps_to_leader(behind)
