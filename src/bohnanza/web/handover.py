"""Carrying a seat to another device without putting its token into a URL.

A link that holds a seat's token (``/t/ID#seat=TOKEN``) lands in the other browser's
history as it is opened, before any script of the page can take it out of the address
bar, and stays there for whoever uses that browser next. The table page therefore asks
for a one-time code instead (``POST /api/tables/{id}/handover`` with the token) and puts
that into the link (``#claim=CODE``); the other device trades it for the token once
(``POST /api/tables/{id}/claim``). What history keeps then is a spent code. A code lasts
:data:`TTL` seconds; the server keeps at most :data:`MAX_CODES` (and only their hashes).
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections import OrderedDict

#: Seconds a hand-over code can be claimed.
TTL = 600.0
#: Codes kept at once; the oldest go first.
MAX_CODES = 10_000


def _key(table_id: str, code: str) -> str:
    return hashlib.sha256(f"{table_id} {code}".encode()).hexdigest()


class Handovers:
    """The codes that are waiting to be claimed: code hash -> (token, expiry)."""

    def __init__(self) -> None:
        self.codes: OrderedDict[str, tuple[str, float]] = OrderedDict()
        self.by_token: dict[str, str] = {}  # token -> its code's hash (one code a seat)

    def issue(self, table_id: str, token: str, now: float | None = None) -> str:
        now = time.monotonic() if now is None else now
        self._sweep(now)
        old = self.by_token.pop(token, None)
        if old is not None:
            self.codes.pop(old, None)
        code = secrets.token_urlsafe(18)
        key = _key(table_id, code)
        self.codes[key] = (token, now + TTL)
        self.by_token[token] = key
        while len(self.codes) > MAX_CODES:
            _key_gone, (gone, _expiry) = self.codes.popitem(last=False)
            self.by_token.pop(gone, None)
        return code

    def claim(self, table_id: str, code: str, now: float | None = None) -> str | None:
        """The token the code stands for, once; None if it was used, expired or wrong."""
        now = time.monotonic() if now is None else now
        found = self.codes.pop(_key(table_id, code), None)
        if found is None:
            return None
        token, expiry = found
        self.by_token.pop(token, None)
        return token if now < expiry else None

    def _sweep(self, now: float) -> None:
        while self.codes:
            key, (token, expiry) = next(iter(self.codes.items()))
            if expiry > now:
                break
            del self.codes[key]
            self.by_token.pop(token, None)
