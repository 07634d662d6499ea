"""Issue 53 (item 5): the no-kingmaking rule refuses every trade that
``benchmarks/kingmaking.py`` counts as feeding the king, in the bot's answers, in the
offers it makes and in its gifts, and trades as before otherwise. The bot and the
benchmark share one definition (``bohnanza.agents.heuristic.feeds_king``).

The position: the sole leader by coins (seat 0) is not the leader once the fields are
counted (seat 2's two long fields pay 8 coins); the rule as it was judged the leader by
coins plus half the field payouts, found seat 0 behind seat 2, and let a trailing seat
hand seat 0 a coin in the last turns, which the benchmark counts."""

from __future__ import annotations

from typing import Any

from bohnanza import Action, ActionType, Game
from bohnanza.actions import Offer
from bohnanza.agents.heuristic import (
    HeuristicAgent,
    Position,
    feeds_king,
    payout_gain,
    scores_now,
    sole_leader,
    tables_for,
    turns_left,
)
from bohnanza.agents.search import SearchAgent
from scripts import load_script
from test_bots import cards_of, put, trade_phase

_T = ActionType


def coin_leader_position(late: bool, offer: bool) -> tuple[Game, int]:
    """Seat 0 (active) has 5 coins and a Red field of 3; seat 1 has 2 coins, Blue (3)
    and Chili (2) fields and a Red in front of its hand; seat 2 has 3 coins and Soy (7) and Stink (8)
    fields, 8 coins of payout. With ``offer``, seat 0 has offered seat 1 a drawn Blue for
    a Red: each side's field would pay a coin more. ``late``: the last cards of the last
    run-out. Returns the game and seat 1's Red."""
    game = trade_phase()
    for s in range(4):
        for f in game.fields[s]:
            while f:
                game.discard.append(f.pop())
    red, blue, chili = cards_of(game, "red"), cards_of(game, "blue"), cards_of(game, "chili")
    soy, stink = cards_of(game, "soy"), cards_of(game, "stink")
    for c in red[:3]:
        put(game, c, game.fields[0][0])
    for c in blue[:3]:
        put(game, c, game.fields[1][0])
    for c in chili[:2]:
        put(game, c, game.fields[1][1])
    for c in soy[:7]:
        put(game, c, game.fields[2][0])
    for c in stink[:8]:
        put(game, c, game.fields[2][1])
    put(game, red[3], game.hands[1])
    game.hands[1].insert(0, game.hands[1].pop())  # in front: it must be planted next
    while game.drawn:
        game.draw.append(game.drawn.pop())
    put(game, blue[3], game.drawn)
    put(game, blue[4], game.drawn)
    used = set(red + blue + chili + soy + stink)
    spare = [c for c in game.draw if c not in used]
    for seat, first, last in ((0, 0, 5), (1, 5, 7), (2, 7, 10)):
        for c in spare[first:last]:
            put(game, c, game.treasury[seat])
    if late:
        game.runouts = game.config.runouts_to_end - 1
        while len(game.draw) > 6:
            game.discard.append(game.draw.pop())
    game.invalidate_views()
    if offer:
        game.apply(0, Action.propose(Offer(1, (blue[3],), (("red", 1),))))
    return game, red[3]


def counted(
    bench: Any, game: Game, proposer: int, give: list[int], seat: int, cards: list[int]
) -> bool:
    """Whether the benchmark counts the trade (leader by coins, or by score)."""
    return any(bench._fed(game, by, proposer, give, seat, cards) for by in (False, True))


def test_the_shared_definition() -> None:
    game, red = coin_leader_position(late=True, offer=False)
    cfg = game.config
    coins = [len(t) for t in game.treasury]
    assert coins == [5, 2, 3, 0]
    assert scores_now(cfg, coins, game.fields) == [7, 2, 11, 0]
    assert sole_leader(coins) == 0 and sole_leader(scores_now(cfg, coins, game.fields)) == 2
    assert sole_leader([3, 3, 1]) == -1
    assert payout_gain(cfg, game.fields[0], [red]) == 1  # Red 3 -> 4 pays 2 -> 3
    assert payout_gain(cfg, game.fields[2], [red]) == 0  # no field for it
    assert feeds_king(cfg, coins, game.fields, 0, [red], True, True)
    assert feeds_king(cfg, coins, game.fields, 0, [red], True, False)
    assert not feeds_king(cfg, coins, game.fields, 0, [red], False, True)
    assert not feeds_king(cfg, coins, game.fields, 0, [], True, True)
    assert not feeds_king(cfg, coins, game.fields, 1, [red], True, True)


def test_the_default_refuses_a_trade_the_benchmark_counts_as_feeding() -> None:
    bench = load_script("benchmarks/kingmaking.py")
    # Early in the game the trade is taken: the rule leaves normal trading alone.
    early, _ = coin_leader_position(late=False, offer=True)
    choice = HeuristicAgent(1).act(early.view(1), early.legal_actions(1), False)
    assert choice is not None and choice.type is _T.ACCEPT
    proposer, offer = early.offers[choice.offer_id]  # type: ignore[index]
    assert counted(bench, early, proposer, list(offer.give), 1, list(choice.cards))
    # In the last turns the same trade is one the benchmark counts; ``king`` (the play
    # before the rule) takes it, the default declines it.
    late, _ = coin_leader_position(late=True, offer=True)
    view = late.view(1)
    assert turns_left(view) < 1.0
    legal = late.legal_actions(1)
    accepts = [a for a in legal if a.type is _T.ACCEPT]
    assert accepts
    for a in accepts:
        proposer, offer = late.offers[a.offer_id]  # type: ignore[index]
        assert counted(bench, late, proposer, list(offer.give), 1, list(a.cards))
    king = HeuristicAgent(1, kingmaking=True).act(view, legal, False)
    assert king is not None and king.type is _T.ACCEPT
    choice = HeuristicAgent(1).act(view, legal, False)
    assert choice == Action.decline(next(iter(late.offers)))
    # The search leaves it out of its candidates (``makes_king``).
    search = SearchAgent(1)
    search.heuristic.act(view, legal, False)
    assert all(search.heuristic.makes_king(view, a) for a in accepts)


def test_the_default_offers_the_leader_nothing_that_feeds_it() -> None:
    """Swaps and gifts it would make the coin leader: the Red (its Red field pays a coin
    more) is offered early, not in the last turns, where it still offers other cards."""
    bench = load_script("benchmarks/kingmaking.py")

    def offers(late: bool, **kwargs: Any) -> tuple[list[Offer], list[Offer]]:
        game, red = coin_leader_position(late=late, offer=False)
        view = game.view(1)
        bot = HeuristicAgent(1, **kwargs)
        cands = [o for _s, o in bot._candidates(Position(view, tables_for(view.config)), (0,))]
        fed = [o for o in cands if counted(bench, game, 1, list(o.give), o.to, [])]
        assert all(red in o.give for o in fed)
        return cands, fed

    cands, fed = offers(late=False)
    assert any(o.want for o in fed) and any(not o.want for o in fed)  # a swap and a gift
    cands, fed = offers(late=True, kingmaking=True)
    assert fed
    cands, fed = offers(late=True)
    assert cands and not fed
    # And in play: what it proposes when asked again and again.
    game, _ = coin_leader_position(late=True, offer=False)
    bot = HeuristicAgent(1)
    made: list[Offer] = []
    for _ in range(8):
        a = bot.act(game.view(1), game.legal_actions(1), False)
        if a is None or a.type is not _T.PROPOSE or a.offer is None:
            break
        made.append(a.offer)
        game.apply(1, a)
    fresh, _ = coin_leader_position(late=True, offer=False)
    assert made
    assert not any(counted(bench, fresh, 1, list(o.give), o.to, []) for o in made)
