"""How a model's answer is read: one rule, for :class:`bohnanza.agents.llm.LLMAgent` and
the TextArena environment alike (docs/llm.md, "Reading an answer").

Why a rule of its own: a benchmark counts an answer as valid or invalid, and a reader
that guesses (the last command of the answer, or every command-like line) turns an
answer that names two moves into a move the model may have rejected, counted as valid.
The rule therefore never guesses:

1. Reasoning goes: ``<think>…</think>`` (``<thinking>``, ``<reasoning>``) blocks, all
   before a lone closing tag, all after a lone opening tag.
2. A marked final answer wins, the first of: a JSON object with ``moves`` (a list) or
   ``move`` (a string), alone or fenced; the text after the last ``Final answer:``
   (``Ostateczna odpowiedź:``); the commands written in square brackets
   (``[plant 1] because…``). Within a ``Final answer:`` section, JSON or brackets win
   again over its bare lines.
3. A line of the answer (or of the marked part) counts as a command when it reads as
   one (:func:`bohnanza.text.parse_command`, after decoration and a short label before
   a colon are dropped); any other line is prose. Repeats of one move count once.
4. One move wanted: the answer must hold exactly one command; two different ones make it
   ambiguous (:class:`AmbiguousAnswer`), an invalid answer that says why, never a guess.
   Offers waiting for the seat (``multi``): every command, in order, unless two of them
   answer one offer differently, ``pass`` comes with moves, or a command stands under a
   label that does not say it is the move made (``Rejected: harvest 1``, ``Option 2:``;
   :data:`MOVE_LABELS` are those that do) next to another command: ambiguous too.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence

from .actions import Action, ActionType
from .text import CommandError, Lang, check_answer, clean_line, is_command, parse_command
from .views import View

_T = ActionType

#: The most command lines an answer is read for: past this the answer is ambiguous.
MAX_COMMANDS = 40

_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_OPEN_THINK = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)
_CLOSE_THINK = re.compile(r"</(think|thinking|reasoning)>", re.IGNORECASE)
#: ``Final answer:`` and its Polish forms, bold or not (``**Final answer:**``).
_FINAL = re.compile(
    r"(final\s+answer|ostateczna\s+odpowied[zź]|odpowied[zź]\s+ko[nń]cowa)[\s*_]*:",
    re.IGNORECASE,
)
_BRACKETED = re.compile(r"\[([^\[\]\n]{1,300})\]")
_FENCED = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)```", re.DOTALL)


class AmbiguousAnswer(CommandError):
    """The answer names more than one move where one was wanted (or answers an offer two
    ways): an invalid answer of its own kind, counted and sent back with why."""


def _(lang: Lang, en: str, pl: str) -> str:
    return pl if lang == "pl" else en


def strip_reasoning(text: str) -> str:
    """The answer without its reasoning: ``<think>…</think>`` blocks go, and so does
    everything before a lone closing tag (servers that cut the opening one) or after a
    lone opening tag (reasoning cut off by ``max_tokens``: no answer in it)."""
    text = _THINK.sub("\n", text)
    closing = list(_CLOSE_THINK.finditer(text))
    if closing:
        text = text[closing[-1].end() :]
    opening = _OPEN_THINK.search(text)
    if opening:
        text = text[: opening.start()]
    return text


def _json_moves(text: str) -> list[str] | None:
    """The moves of a JSON answer (``{"moves": [...]}`` or ``{"move": "..."}``): the
    whole text, a fenced block or a line that is one object; None when there is none."""
    found = [text.strip()]
    found += [m.group(1).strip() for m in _FENCED.finditer(text)]
    found += [line.strip() for line in text.splitlines() if line.strip().startswith("{")]
    for candidate in found:
        if not candidate.startswith("{"):
            continue
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if not isinstance(data, dict):
            continue
        moves = data.get("moves", data.get("move"))
        if isinstance(moves, str):
            return [moves]
        if isinstance(moves, list):
            return [str(m) for m in moves if str(m).strip()]
    return None


def _bracketed(text: str) -> list[str] | None:
    """The commands written in square brackets (TextArena's convention), or None."""
    out = []
    for m in _BRACKETED.finditer(text):
        inner = clean_line(m.group(1))
        if inner and is_command(inner.split(maxsplit=1)[0]):
            out.append(inner)
    return out or None


def marked_part(text: str) -> tuple[list[str], str | None]:
    """(the lines to read, what marked them: ``json``, ``final``, ``brackets`` or None
    for the whole answer), from an answer whose reasoning is already gone."""
    moves = _json_moves(text)
    if moves is not None:
        return moves, "json"
    finals = list(_FINAL.finditer(text))
    if finals:
        section = text[finals[-1].end() :]
        inner = _json_moves(section) or _bracketed(section)
        return (inner if inner is not None else section.splitlines()), "final"
    bracketed = _bracketed(text)
    if bracketed is not None:
        return bracketed, "brackets"
    return text.splitlines(), None


#: Labels that say the line is the move made (``My move: plant 1``), folded; any other
#: label before a command (``Rejected:``, ``Option 2:``) only names a move.
MOVE_LABELS = frozenset(
    {
        "my move", "move", "my answer", "answer", "command", "action", "my action",
        "decision", "my decision", "choice", "my choice", "play", "i play",
        "moj ruch", "ruch", "odpowiedz", "komenda", "akcja", "decyzja", "wybor", "gram",
    }
)  # fmt: skip


def _fold(text: str) -> str:
    text = text.lower().replace("ł", "l")
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _unlabel(line: str) -> tuple[str, str | None]:
    """A line without decoration and without a short label before a colon, and the
    label when it is not a move label (``Rejected: plant 2`` → ``plant 2``,
    ``rejected``), so that a move merely named is told from the move made; the colon of
    a command itself (``offer 2 give 1 want chili:1``) stays."""
    line = clean_line(line)
    if not line:
        return line, None
    head = line.split(maxsplit=1)[0]
    if ":" in line and not is_command(head.rstrip(":")):
        label, _sep, after = line.partition(":")
        if len(label.split()) <= 4 and after.strip():
            name = " ".join(_fold(label).strip(" *_`#-").split())
            return clean_line(after), None if name in MOVE_LABELS else name
    return line, None


def command_lines(text: str) -> list[str]:
    """The candidate lines of an answer, decoration gone: reasoning stripped, the marked
    final answer taken when there is one (:func:`marked_part`), labels dropped."""
    return [line for line, _label in _candidates(text) if line]


def _candidates(text: str) -> list[tuple[str, str | None]]:
    lines, _how = marked_part(strip_reasoning(text).strip())
    return [(line, label) for line, label in map(_unlabel, lines) if line]


def _quote(line: str) -> str:
    return repr(line if len(line) <= 80 else line[:80] + "...")


def read_answer(
    text: str,
    view: View,
    legal: Sequence[Action],
    lang: Lang = "en",
    *,
    multi: bool = False,
    base: int = 1,
) -> tuple[list[Action], bool]:
    """The moves an answer names, by the rule of this module: (actions in order, whether
    it said ``pass``). The first action is checked against ``legal`` now; with ``multi``
    the others are checked when their turn comes. Raises :class:`CommandError` (no
    command, a command that cannot be played) or :class:`AmbiguousAnswer`."""
    candidates = _candidates(text)
    lines = [line for line, _label in candidates]
    if not lines:
        raise CommandError(_(lang, "the answer is empty; write one command", "pusta odpowiedź"))
    read: list[tuple[str, Action | None]] = []
    errors: list[str] = []
    labelled: list[str] = []  # command lines under a label that does not say "my move"
    for line, label in candidates:
        if not is_command(line.split(maxsplit=1)[0]):
            continue  # prose
        try:
            action = parse_command(line, view, lang, base=base)
        except CommandError as exc:
            errors.append(f"{_quote(line)}: {exc}")
            continue
        if label is not None:
            labelled.append(f"{label}: {line}")
        if all(action != seen for _l, seen in read):
            read.append((line, action))
        if len(read) > MAX_COMMANDS:
            raise AmbiguousAnswer(
                _(
                    lang,
                    f"the answer names more than {MAX_COMMANDS} moves; write only the "
                    "moves you make",
                    f"odpowiedź wymienia ponad {MAX_COMMANDS} ruchów; napisz tylko swoje",
                )
            )
    if not read:
        if errors:
            raise CommandError(errors[0])
        if len(lines) == 1:  # one line of prose: the parser says what a command is
            parse_command(lines[0], view, lang, base=base)
        raise CommandError(
            _(
                lang,
                "no command in the answer; write one command on a line of its own",
                "brak komendy w odpowiedzi; napisz jedną komendę w osobnej linii",
            )
        )
    if not multi:
        if len(read) > 1:
            named = ", ".join(_quote(line) for line, _a in read[:4])
            raise AmbiguousAnswer(
                _(
                    lang,
                    f"ambiguous answer: it names {len(read)} different moves ({named}); "
                    "write only the move you make, or mark it: Final answer: COMMAND",
                    f"niejednoznaczna odpowiedź: wymienia {len(read)} różne ruchy "
                    f"({named}); napisz tylko swój ruch albo oznacz go: "
                    "Ostateczna odpowiedź: KOMENDA",
                )
            )
        line, action = read[0]
        if action is None:
            return [], True
        _check(action, line, view, legal, lang, base)
        return [action], False
    if labelled and len(read) > 1:
        raise AmbiguousAnswer(
            _(
                lang,
                f"ambiguous answer: {_quote(labelled[0])} names a move without saying it is "
                "one you make; write only the moves you make, or mark them: Final answer: "
                "followed by its commands",
                f"niejednoznaczna odpowiedź: {_quote(labelled[0])} wymienia ruch, nie mówiąc, "
                "że go wykonujesz; napisz tylko swoje ruchy albo oznacz je: Ostateczna "
                "odpowiedź:",
            )
        )
    answered: dict[int, tuple[str, Action]] = {}
    for line, action in read:
        if action is None or action.type not in (_T.ACCEPT, _T.DECLINE):
            continue
        assert action.offer_id is not None
        earlier = answered.setdefault(action.offer_id, (line, action))
        if earlier[1] != action:
            raise AmbiguousAnswer(
                _(
                    lang,
                    f"ambiguous answer: offer #{action.offer_id} is answered twice "
                    f"({_quote(earlier[0])}, {_quote(line)}); answer each offer once, or "
                    "mark your answer: Final answer: followed by its commands",
                    f"niejednoznaczna odpowiedź: na ofertę #{action.offer_id} są dwie "
                    f"odpowiedzi ({_quote(earlier[0])}, {_quote(line)}); odpowiedz na "
                    "każdą raz albo oznacz odpowiedź: Ostateczna odpowiedź:",
                )
            )
    actions = [a for _l, a in read if a is not None]
    passed = len(actions) < len(read)
    if passed and actions:
        named = ", ".join(_quote(line) for line, a in read[:4] if a is not None)
        raise AmbiguousAnswer(
            _(
                lang,
                f"ambiguous answer: it says pass and also names moves ({named}); write "
                "only the moves you make, or only pass",
                f"niejednoznaczna odpowiedź: pas i zarazem ruchy ({named}); napisz tylko "
                "swoje ruchy albo tylko pas",
            )
        )
    if actions:
        first = next(line for line, a in read if a is actions[0])
        _check(actions[0], first, view, legal, lang, base)
    return actions, passed


def _check(
    action: Action, line: str, view: View, legal: Sequence[Action], lang: Lang, base: int
) -> None:
    try:
        check_answer(action, view, legal, lang, base=base)
    except CommandError as exc:
        raise CommandError(f"{_quote(line)}: {exc}") from None


__all__ = [
    "MAX_COMMANDS",
    "MOVE_LABELS",
    "AmbiguousAnswer",
    "command_lines",
    "marked_part",
    "read_answer",
    "strip_reasoning",
]
