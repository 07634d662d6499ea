"""The WebSocket protocol: parsing and validating what clients send, building what they get.

Every frame a client sends is one JSON object with a ``type``. Anything else - a frame
over :data:`MAX_MESSAGE` bytes, a binary frame, text that is not JSON, an object with an
unknown type or with wrong fields - is answered with an ``error`` message to that client
alone and changes nothing. The messages are documented in ``docs/web.md``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .limits import clean_text

#: The largest frame a client may send, in bytes (UTF-8). Larger frames get an error.
MAX_MESSAGE = 64 * 1024
#: Frames above this size are refused by the WebSocket layer itself (connection closed
#: with code 1009); between MAX_MESSAGE and this, the client gets an error message.
MAX_FRAME = 1024 * 1024
MAX_CHAT = 500
MAX_NAME = 40
MAX_TOKEN = 200
MAX_ID = 64

CLIENT_TYPES = (
    "hello",
    "action",
    "chat",
    "start",
    "leave",
    "rematch",
    "rematch_join",
    "rematch_decline",
    "ping",
    "host",
    "stand_in",
    "back",
    "move",
)
#: What a table's host may do (a ``host`` message's ``op``), with the field each needs.
HOST_OPS = {
    "remove": "seat",  # remove the player from a seat before the start
    "private": "value",  # true: listed nowhere, reachable by its link only
    "spectator_chat": "value",  # false: spectators cannot chat
    "mute": "chatter",  # the chatter's lines are refused at this table
    "unmute": "chatter",
}


class ProtocolError(Exception):
    """A message that cannot be accepted; ``code`` is machine-readable."""

    def __init__(self, code: str, message: str, msg_id: str | int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.msg_id = msg_id


@dataclass(frozen=True, slots=True)
class ClientMessage:
    type: str
    id: str | int | None = None
    token: str | None = None
    action: dict[str, Any] | None = None
    text: str | None = None
    op: str | None = None
    seat: int | None = None
    value: bool | None = None
    chatter: str | None = None


def _msg_id(data: dict[str, Any]) -> str | int | None:
    raw = data.get("id")
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | str):
        raise ProtocolError("bad_message", "id must be a string or an integer")
    if isinstance(raw, str) and len(raw) > MAX_ID:
        raise ProtocolError("bad_message", f"id is longer than {MAX_ID} characters")
    if isinstance(raw, int) and not -(2**53) < raw < 2**53:
        raise ProtocolError("bad_message", "id is out of range")
    return raw


def _only(data: dict[str, Any], allowed: set[str], msg_id: str | int | None) -> None:
    extra = set(data) - allowed - {"type", "id"}
    if extra:
        raise ProtocolError(
            "bad_message",
            f"unexpected field(s) {', '.join(sorted(extra))} in a {data['type']} message",
            msg_id,
        )


def parse_client_message(raw: str | bytes | None, limit: int = MAX_MESSAGE) -> ClientMessage:
    """Validate one frame from a client, or raise :class:`ProtocolError`."""
    if raw is None:
        raise ProtocolError("bad_message", "empty frame")
    if isinstance(raw, bytes):
        raise ProtocolError("bad_message", "binary frames are not accepted; send JSON text")
    size = len(raw.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise ProtocolError(
            "too_large", f"message of {size} bytes is larger than the limit of {limit}"
        )
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ProtocolError("bad_json", f"message is not valid JSON: {exc}") from None
    except ValueError:
        # An integer of more than 4,300 digits, which Python refuses to convert (the
        # conversion takes quadratic time): it used to drop the connection.
        raise ProtocolError("bad_json", "message holds a number with too many digits") from None
    # JSON escapes can spell lone surrogates ("\ud800"), which no UTF-8 text holds: echoed
    # in an answer (an id, a chat line) they would make the send fail and drop the
    # connection, and a database refuses them. Refuse them here, before anything echoes.
    # (Only text with an escape or a non-ASCII character can hold one: the usual move is
    # plain ASCII and skips the re-encoding.)
    if "\\u" in raw or not raw.isascii():
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ProtocolError(
                "bad_json", "message holds invalid Unicode (a lone surrogate)"
            ) from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "a message must be a JSON object with a type")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in CLIENT_TYPES:
        raise ProtocolError(
            "unknown_type",
            f"unknown message type {kind!r}; known: {', '.join(CLIENT_TYPES)}",
            _safe_id(data),
        )
    msg_id = _msg_id(data)
    if kind == "hello":
        _only(data, {"token"}, msg_id)
        token = data.get("token")
        if token is not None and (not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN):
            raise ProtocolError("bad_message", "token must be a non-empty string", msg_id)
        return ClientMessage(kind, msg_id, token=token)
    if kind == "action":
        _only(data, {"action"}, msg_id)
        action = data.get("action")
        if not isinstance(action, dict):
            raise ProtocolError("bad_message", "an action message needs an action object", msg_id)
        return ClientMessage(kind, msg_id, action=action)
    if kind == "chat":
        _only(data, {"text"}, msg_id)
        text = data.get("text")
        if not isinstance(text, str) or not text.strip():
            raise ProtocolError("bad_message", "chat needs a non-empty text", msg_id)
        if len(text) > MAX_CHAT:
            raise ProtocolError("too_large", f"chat text is longer than {MAX_CHAT}", msg_id)
        return ClientMessage(kind, msg_id, text=text.strip())
    if kind == "host":
        return _host_message(data, msg_id)
    if kind == "stand_in":
        _only(data, {"seat"}, msg_id)
        seat = data.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 7:
            raise ProtocolError("bad_message", "seat must be a seat number (0-6)", msg_id)
        return ClientMessage(kind, msg_id, seat=seat)
    _only(data, set(), msg_id)
    return ClientMessage(kind, msg_id)


def _host_message(data: dict[str, Any], msg_id: str | int | None) -> ClientMessage:
    op = data.get("op")
    if not isinstance(op, str) or op not in HOST_OPS:
        raise ProtocolError(
            "bad_message", f"op must be one of {', '.join(HOST_OPS)}, not {op!r}", msg_id
        )
    need = HOST_OPS[op]
    _only(data, {"op", need}, msg_id)
    value = data.get(need)
    if need == "seat":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 7:
            raise ProtocolError("bad_message", "seat must be a seat number (0-6)", msg_id)
        return ClientMessage("host", msg_id, op=op, seat=value)
    if need == "value":
        if not isinstance(value, bool):
            raise ProtocolError("bad_message", "value must be true or false", msg_id)
        return ClientMessage("host", msg_id, op=op, value=value)
    if not isinstance(value, str) or not 0 < len(value) <= MAX_ID:
        raise ProtocolError("bad_message", "chatter must be a chatter id from a chat line", msg_id)
    return ClientMessage("host", msg_id, op=op, chatter=value)


def _safe_id(data: dict[str, Any]) -> str | int | None:
    try:
        return _msg_id(data)
    except ProtocolError:
        return None


def error(
    code: str, message: str, msg_id: str | int | None = None, rule: str | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if msg_id is not None:
        out["id"] = msg_id
    if rule:
        out["rule"] = rule
    return out


def dumps(message: dict[str, Any] | list[Any]) -> str:
    """Compact JSON, as every message (and the broadcast's shared seat parts) is sent."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def clean_name(name: object, default: str) -> str:
    """A display name: printable, trimmed, at most MAX_NAME characters."""
    if not isinstance(name, str):
        return default
    text = "".join(ch for ch in clean_text(name) if ch.isprintable()).strip()[:MAX_NAME]
    return text or default
