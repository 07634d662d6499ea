"""One exception hierarchy, so that callers can catch "the player did something wrong"
(``IllegalAction``) apart from "the game was set up wrongly" (``ConfigError``) and "a file
is broken" (``RecordError``). All are ``ValueError``s: bad input, never a crash."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

_RULE_ID = re.compile(r"\bR-[A-Z0-9]+-[A-Z0-9]+\b")


class BohnanzaError(ValueError):
    """Base class of every error this package raises on purpose."""


class StopsRun(BohnanzaError):
    """An agent's failure that a run of many games must not contain as one seat's
    forfeit (:mod:`bohnanza.forfeits`): the agent's own stop policy decides (a language
    model that gave up, ``--llm-fallback``)."""


class ConfigError(BohnanzaError):
    """An unknown rule set or module, a player count out of range, a bad game option."""


class IllegalAction(BohnanzaError):
    """An action that the rules do not allow now. The game state is left unchanged.

    ``rule`` names the RULES.md rule that forbids it, when one does; ``refusal`` carries the
    same reason as data (:class:`Refusal`) when a rule object refused the action.
    """

    refusal: Refusal | None

    def __init__(
        self,
        message: str,
        *,
        seat: int | None = None,
        rule: str | None = None,
        refusal: Refusal | None = None,
    ) -> None:
        if rule and f"({rule})" not in message:
            message = f"{message} ({rule})"
        if rule is None:  # a reason that cites its rule inline still fills .rule
            found = _RULE_ID.findall(message)
            rule = found[-1] if found else None
        super().__init__(message)
        self.seat = seat
        self.rule = rule
        self.refusal = refusal


class NotYourTurn(IllegalAction):
    """The seat may not take this kind of action at this moment (phase or seat is wrong)."""


class InvalidOffer(IllegalAction):
    """A trade offer is malformed, refers to cards its proposer does not hold, or is stale."""


class GameOver(IllegalAction):
    """The game has ended; no action is possible any more."""


def _rule_in(text: str) -> str | None:
    found = _RULE_ID.findall(text)
    return found[-1] if found else None


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why ``seat`` may not ``what``, as data: what a rule object's ``refusal`` returns and
    what :class:`IllegalAction` carries (``exc.refusal``).

    ``why`` is the English reason and ``message`` the sentence the exception says ("seat 0
    cannot harvest field 1: field 1 is empty"); ``rule`` is the RULES.md rule ID (read from
    ``why`` when not given, as :class:`IllegalAction` does); ``code`` names the reason, one
    code per distinct reason, worded in English and Polish by :data:`bohnanza.refusals.REASONS`
    (``field_empty``, ``field_variety``, ``own_turn_only``, ...; by default ``game_over``,
    ``not_now`` or ``malformed`` after ``kind``, for refusals made before
    any rule was asked); ``details`` holds what the wording needs, seats and fields 0-based
    as the engine counts (``field``, ``other``, ``active``: the seat whose move it is,
    ``partner``: the other seat of a trade the reason names), counts (``n``, ``price``, ``coins``,
    ``most``) and names (``top``, ``card``: varieties; ``phase``) - never a hidden card.
    """

    seat: int
    what: str
    why: str
    rule: str | None = None
    kind: type[IllegalAction] = IllegalAction
    code: str = ""
    details: Mapping[str, int | str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.rule is None:
            object.__setattr__(self, "rule", _rule_in(self.why) or _rule_in(self.what))
        if not self.code:
            code = (
                "game_over"
                if issubclass(self.kind, GameOver)
                else "not_now"
                if issubclass(self.kind, NotYourTurn)
                else "malformed"
            )
            object.__setattr__(self, "code", code)

    @property
    def message(self) -> str:
        text = f"seat {self.seat} cannot {self.what}: {self.why}"
        if self.rule and f"({self.rule})" not in text:
            text = f"{text} ({self.rule})"
        return text

    def error(self) -> IllegalAction:
        """The exception that reports this refusal."""
        return self.kind(self.message, seat=self.seat, rule=self.rule, refusal=self)


class RecordError(BohnanzaError):
    """A game record or saved state is malformed or does not replay."""


#: The public names (tests/test_public_api.py; CHANGELOG.md says when they change).
__all__ = [
    "BohnanzaError",
    "ConfigError",
    "GameOver",
    "IllegalAction",
    "InvalidOffer",
    "NotYourTurn",
    "RecordError",
    "Refusal",
    "StopsRun",
]
