"""Carrying a seat to another device without putting its token into a URL.

A link that holds a seat's token (``/t/ID#seat=TOKEN``) lands in the other browser's
history as it is opened, before any script of the page can take it out of the address
bar, and stays there for whoever uses that browser next. The table page therefore asks
for a one-time code instead (``POST /api/tables/{id}/handover`` with the token) and puts
that into the link (``#claim=CODE``); the other device trades it for the token once
(``POST /api/tables/{id}/claim``). What history keeps then is a spent code. A code lasts
:data:`TTL` seconds; the server keeps at most :data:`MAX_CODES` (and only their hashes),
at most :data:`PER_ADDRESS` of them for one address: an address over its share replaces
its own oldest code, and a full server refuses new codes (:class:`HandoversFull`) rather
than drop somebody else's.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections import OrderedDict

#: Seconds a hand-over code can be claimed.
TTL = 600.0
#: Codes kept at once.
MAX_CODES = 10_000
#: Codes one address may have waiting (a person moves a seat or two at a time).
PER_ADDRESS = 20


class HandoversFull(Exception):
    """The server holds :data:`MAX_CODES` codes: no new one until some are used or expire."""


def _key(table_id: str, code: str) -> str:
    return hashlib.sha256(f"{table_id} {code}".encode()).hexdigest()


class Handovers:
    """The codes that are waiting to be claimed: code hash -> (token, expiry, address)."""

    def __init__(self, max_codes: int = MAX_CODES, per_address: int = PER_ADDRESS) -> None:
        self.max_codes, self.per_address = max_codes, per_address
        self.codes: OrderedDict[str, tuple[str, float, str]] = OrderedDict()
        self.by_token: dict[str, str] = {}  # token -> its code's hash (one code a seat)
        self.by_address: dict[str, OrderedDict[str, None]] = {}  # address -> its codes

    def issue(self, table_id: str, token: str, address: str = "", now: float | None = None) -> str:
        now = time.monotonic() if now is None else now
        self._sweep(now)
        old = self.by_token.get(token)
        if old is not None:
            self._drop(old)
        mine = self.by_address.get(address)
        if mine is not None and len(mine) >= self.per_address:
            self._drop(next(iter(mine)))  # this address's own oldest code, nobody else's
        if len(self.codes) >= self.max_codes:
            raise HandoversFull("too many seats are being handed over; try again later")
        code = secrets.token_urlsafe(18)
        key = _key(table_id, code)
        self.codes[key] = (token, now + TTL, address)
        self.by_token[token] = key
        self.by_address.setdefault(address, OrderedDict())[key] = None
        return code

    def _drop(self, key: str) -> tuple[str, float, str] | None:
        found = self.codes.pop(key, None)
        if found is not None:
            token, _expiry, address = found
            if self.by_token.get(token) == key:
                del self.by_token[token]
            mine = self.by_address.get(address)
            if mine is not None:
                mine.pop(key, None)
                if not mine:
                    del self.by_address[address]
        return found

    def claim(self, table_id: str, code: str, now: float | None = None) -> str | None:
        """The token the code stands for, once; None if it was used, expired or wrong."""
        now = time.monotonic() if now is None else now
        found = self._drop(_key(table_id, code))
        if found is None:
            return None
        token, expiry, _address = found
        return token if now < expiry else None

    def _sweep(self, now: float) -> None:
        while self.codes:
            key, (_token, expiry, _address) = next(iter(self.codes.items()))
            if expiry > now:
                break
            self._drop(key)
