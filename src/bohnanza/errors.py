"""One exception hierarchy, so that callers can catch "the player did something wrong"
(``IllegalAction``) apart from "the game was set up wrongly" (``ConfigError``) and "a file
is broken" (``RecordError``). All are ``ValueError``s: bad input, never a crash."""

from __future__ import annotations

import re

_RULE_ID = re.compile(r"\bR-[A-Z0-9]+-[A-Z0-9]+\b")


class BohnanzaError(ValueError):
    """Base class of every error this package raises on purpose."""


class ConfigError(BohnanzaError):
    """An unknown rule set or module, a player count out of range, a bad game option."""


class IllegalAction(BohnanzaError):
    """An action that the rules do not allow now. The game state is left unchanged.

    ``rule`` names the RULES.md rule that forbids it, when one does.
    """

    def __init__(self, message: str, *, seat: int | None = None, rule: str | None = None) -> None:
        if rule and f"({rule})" not in message:
            message = f"{message} ({rule})"
        if rule is None:  # a reason that cites its rule inline still fills .rule
            found = _RULE_ID.findall(message)
            rule = found[-1] if found else None
        super().__init__(message)
        self.seat = seat
        self.rule = rule


class NotYourTurn(IllegalAction):
    """The seat may not take this kind of action at this moment (phase or seat is wrong)."""


class InvalidOffer(IllegalAction):
    """A trade offer is malformed, refers to cards its proposer does not hold, or is stale."""


class GameOver(IllegalAction):
    """The game has ended; no action is possible any more."""


class RecordError(BohnanzaError):
    """A game record or saved state is malformed or does not replay."""
