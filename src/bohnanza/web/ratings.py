"""Ratings of accounts: OpenSkill (Plackett-Luce) per rule set, updated as a rated game ends.

A table is rated by its host's choice at creation (``rated``: ``people``: only the seats
claimed by accounts are ranked among themselves; ``bots``: the bots are ranked with them,
each at a fixed rating that never changes, :data:`BOT_RATING`). Guests' seats (no account)
are never rated. A game is rated only if at least two players are ranked and at least one
of them is an account.

:func:`rate_finished` runs inside the database transaction that stores the game's last
action and its result (``Store.on_game_over``): the game ends with its ratings or not at
all, and a crash in between leaves neither. On PostgreSQL the rating rows are read with
``FOR UPDATE``, so two games ending at once for one player do not lose an update.

Rating without playing (issue 51: an account started tables rated with random bots,
walked away, and its stand-in won it to the top of the leaderboard in 5 games): a claimed
seat whose decisions were mostly chosen by the server (``ActionRow.auto``: its stand-in
while its person was away, timed out or after resigning) is ranked last, whatever the
stand-in made of it. So a game played by a stand-in never counts as a win, and walking
away from a losing game does not dodge the loss. And a table rated ``bots`` seats only
bots worth beating (:data:`RATED_BOTS`).

Rating manipulation (a second account fed with wins): every history row records whether
an account at that table had fewer than :data:`PROVISIONAL_GAMES` rated games before it
(``fresh``); the leaderboard lists such accounts as provisional and the player page marks
those games. Nothing stops two accounts of one person playing each other; the flag makes
it visible (docs/web.md, "Ratings").
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import Float, ForeignKey, Integer, String, func, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Mapped, mapped_column

from .accounts import AccountRow, SeatAccountRow
from .store import ActionRow, Base, SeatRow, TableRow

#: Accounts with fewer rated games than this are provisional (flagged, listed apart).
PROVISIONAL_GAMES = 5
#: A new account's rating (OpenSkill's defaults).
MU, SIGMA = 25.0, 25.0 / 3
#: Bots' fixed ratings at tables rated ``bots`` (mu; sigma is BOT_SIGMA): rough
#: strengths by kind, set by hand in the bots' known order of strength (random < autarky <
#: heuristic < search), not measured against people; any other bot counts as MU.
BOT_RATING = {"random": 15.0, "autarky": 20.0, "heuristic": 27.0, "search": 30.0}
BOT_SIGMA = 1.0
RATED_CHOICES = ("no", "people", "bots")
#: The bots a table rated ``bots`` may seat: beating weaker ones (random, autarky) again
#: and again raised a new account to the top of the leaderboard.
RATED_BOTS = ("heuristic", "search")


class RatingRow(Base):
    __tablename__ = "bohnanza_ratings"

    account_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("bohnanza_accounts.id"), primary_key=True
    )
    rules: Mapped[str] = mapped_column(String(64), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[float] = mapped_column(Float)  # a shared win counts 1/winners
    coins: Mapped[int] = mapped_column(Integer)  # summed over the rated games
    updated: Mapped[float] = mapped_column(Float)


class RatingHistoryRow(Base):
    __tablename__ = "bohnanza_rating_history"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(Integer, ForeignKey("bohnanza_accounts.id"), index=True)
    rules: Mapped[str] = mapped_column(String(64))
    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("bohnanza_tables.id"))
    seat: Mapped[int] = mapped_column(Integer)
    mu: Mapped[float] = mapped_column(Float)  # after this game
    sigma: Mapped[float] = mapped_column(Float)
    rank: Mapped[int] = mapped_column(Integer)  # 1 = won
    coins: Mapped[int] = mapped_column(Integer)
    won: Mapped[float] = mapped_column(Float)
    fresh: Mapped[int] = mapped_column(Integer)  # 1: an account here was provisional
    created: Mapped[float] = mapped_column(Float)


@dataclass(slots=True)
class Player:
    seat: int
    account: int | None  # None: a bot at a fixed rating
    mu: float
    sigma: float
    games: int = 0
    absent: bool = False  # mostly played by a stand-in: ranked last


def ordinal(mu: float, sigma: float) -> float:
    """The conservative rating shown and sorted by: mu - 3 sigma."""
    return mu - 3 * sigma


def ranks(
    scores: list[int], winners: list[int], seats: list[int], absent: frozenset[int] = frozenset()
) -> list[int]:
    """1 for the winners (R-END tie-breaks decided them), then by coins; ``absent`` seats
    (mostly played by a stand-in) after everybody, tied among themselves."""
    keys = [(s not in absent, s in winners, scores[s]) for s in seats]
    return [1 + sum(1 for other in keys if other > k) for k in keys]


def stand_in_seats(conn: Connection, table_id: str) -> frozenset[int]:
    """The seats more than half of whose decisions the server chose."""
    counts = conn.execute(
        select(ActionRow.seat, func.count(), func.sum(ActionRow.auto))
        .where(ActionRow.table_id == table_id)
        .group_by(ActionRow.seat)
    ).all()
    return frozenset(seat for seat, total, auto in counts if 2 * int(auto or 0) > int(total))


def rate_finished(conn: Connection, table_id: str, result: dict[str, Any]) -> None:
    """Update the ratings of a rated table's accounts; inside the game's last write."""
    settings_text = conn.scalar(select(TableRow.settings).where(TableRow.id == table_id))
    if settings_text is None:
        return
    settings = json.loads(settings_text)
    mode = settings.get("rated", "no")
    rules = str(settings.get("rules", ""))
    scores, winners = result.get("scores"), result.get("winners")
    if mode not in ("people", "bots") or not isinstance(scores, list) or not rules:
        return
    if not isinstance(winners, list):
        return
    seats = conn.execute(
        select(SeatRow.seat, SeatRow.kind, SeatRow.bot, SeatRow.token_hash).where(
            SeatRow.table_id == table_id
        )
    ).all()
    links = {
        r.seat: (r.account_id, r.token_hash)
        for r in conn.execute(
            select(SeatAccountRow.seat, SeatAccountRow.account_id, SeatAccountRow.token_hash).where(
                SeatAccountRow.table_id == table_id
            )
        )
    }
    players: list[Player] = []
    seen_accounts: set[int] = set()
    absent = stand_in_seats(conn, table_id)
    for seat, kind, bot, token_hash in seats:
        link = links.get(seat)
        # A claimed seat that is a bot now was resigned during the game (a seat left in
        # the lobby stays a person's): its account is rated, so resigning a lost game does
        # not dodge the rating (as last if the stand-in played most of the seat).
        resigned = kind == "bot" and link is not None
        if kind == "person" or resigned:
            if link is None or (not resigned and (token_hash is None or link[1] != token_hash)):
                continue  # a guest, or a seat that is not the account's any more
            if link[0] in seen_accounts:
                continue  # one account in two seats: only its first seat counts
            seen_accounts.add(link[0])
            players.append(Player(seat, link[0], MU, SIGMA, absent=seat in absent))
        elif kind == "bot" and mode == "bots":
            players.append(Player(seat, None, BOT_RATING.get(bot, MU), BOT_SIGMA))
    if len(players) < 2 or not seen_accounts:
        return
    query = select(RatingRow).where(
        RatingRow.rules == rules, RatingRow.account_id.in_(seen_accounts)
    )
    if conn.dialect.name == "postgresql":
        query = query.with_for_update()
    known = {r.account_id: r for r in conn.execute(query)}
    for p in players:
        row = known.get(p.account) if p.account is not None else None
        if row is not None:
            p.mu, p.sigma, p.games = row.mu, row.sigma, row.games
    model = PlackettLuce()
    order = [p.seat for p in players]
    gone = frozenset(p.seat for p in players if p.absent)
    places = ranks([int(x) for x in scores], [int(w) for w in winners], order, gone)
    teams = [[model.rating(mu=p.mu, sigma=p.sigma)] for p in players]
    rated = model.rate(teams, ranks=[float(x) for x in places])
    fresh = int(any(p.games < PROVISIONAL_GAMES for p in players if p.account is not None))
    now = time.time()
    for p, place, team in zip(players, places, rated, strict=True):
        if p.account is None:
            continue  # a bot's rating is fixed
        new = team[0]
        won = 1.0 / len(winners) if p.seat in winners and not p.absent else 0.0
        coins = int(scores[p.seat])
        if p.account in known:
            conn.execute(
                update(RatingRow)
                .where(RatingRow.account_id == p.account, RatingRow.rules == rules)
                .values(
                    mu=new.mu,
                    sigma=new.sigma,
                    games=RatingRow.games + 1,
                    wins=RatingRow.wins + won,
                    coins=RatingRow.coins + coins,
                    updated=now,
                )
            )
        else:
            conn.execute(
                insert(RatingRow).values(
                    account_id=p.account,
                    rules=rules,
                    mu=new.mu,
                    sigma=new.sigma,
                    games=1,
                    wins=won,
                    coins=coins,
                    updated=now,
                )
            )
        conn.execute(
            insert(RatingHistoryRow).values(
                account_id=p.account,
                rules=rules,
                table_id=table_id,
                seat=p.seat,
                mu=new.mu,
                sigma=new.sigma,
                rank=place,
                coins=coins,
                won=won,
                fresh=fresh,
                created=now,
            )
        )


# ------------------------------------------------------------------ reads


def leaderboard(conn: Connection, rules: str, limit: int = 100) -> list[dict[str, Any]]:
    """Accounts rated in ``rules``, best ordinal first; provisional ones after."""
    rows = conn.execute(
        select(*RatingRow.__table__.columns, AccountRow.name)
        .join(AccountRow, AccountRow.id == RatingRow.account_id)
        .where(RatingRow.rules == rules)
    ).all()
    out = [
        {
            "name": r.name,
            "mu": round(r.mu, 2),
            "sigma": round(r.sigma, 2),
            "rating": round(ordinal(r.mu, r.sigma), 2),
            "games": r.games,
            "win_share": round(r.wins / r.games, 3) if r.games else 0.0,
            "mean_coins": round(r.coins / r.games, 2) if r.games else 0.0,
            "provisional": r.games < PROVISIONAL_GAMES,
        }
        for r in rows
    ]
    out.sort(key=lambda x: (x["provisional"], -x["rating"], x["name"]))
    return out[:limit]


def player(conn: Connection, account_id: int, history: int = 200) -> dict[str, Any]:
    """An account's ratings per rule set, their history (oldest first) and recent games."""
    ratings = {
        r.rules: {
            "mu": round(r.mu, 2),
            "sigma": round(r.sigma, 2),
            "rating": round(ordinal(r.mu, r.sigma), 2),
            "games": r.games,
            "win_share": round(r.wins / r.games, 3) if r.games else 0.0,
            "mean_coins": round(r.coins / r.games, 2) if r.games else 0.0,
            "provisional": r.games < PROVISIONAL_GAMES,
        }
        for r in conn.execute(select(RatingRow).where(RatingRow.account_id == account_id))
    }
    rows = conn.execute(
        select(RatingHistoryRow)
        .where(RatingHistoryRow.account_id == account_id)
        .order_by(RatingHistoryRow.id.desc())
        .limit(history)
    ).all()
    seats: dict[str, list[tuple[int, str, str, str]]] = {}
    tables = {r.table_id for r in rows}
    if tables:
        for t, seat, kind, bot, name in conn.execute(
            select(SeatRow.table_id, SeatRow.seat, SeatRow.kind, SeatRow.bot, SeatRow.name).where(
                SeatRow.table_id.in_(tables)
            )
        ):
            seats.setdefault(t, []).append((seat, kind, bot, name))

    def opponents(table_id: str, own: int) -> list[str]:
        """The other seats as the table showed them (a person's name; a bot by kind)."""
        out = []
        for seat, kind, bot, name in sorted(seats.get(table_id, [])):
            if seat != own:
                out.append(name if kind == "person" or name else f"{bot} bot")
        return out

    games = [
        {
            "table": r.table_id,
            "rules": r.rules,
            "seat": r.seat,
            "opponents": opponents(r.table_id, r.seat),
            "rating": round(ordinal(r.mu, r.sigma), 2),
            "mu": round(r.mu, 2),
            "rank": r.rank,
            "coins": r.coins,
            "won": r.won > 0,
            "fresh": bool(r.fresh),
            "time": r.created,
            "replay": f"/replay/{r.table_id}",
        }
        for r in reversed(rows)
    ]
    return {"ratings": ratings, "history": games}
