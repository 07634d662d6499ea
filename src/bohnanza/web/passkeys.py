"""Passkeys (WebAuthn, through the ``webauthn`` library): log in without a password.

A logged-in account adds a passkey; a new account may be registered with a passkey
alone (a name, no password); login asks the browser for any passkey of this site
(discoverable credentials: no name typed). The server keeps each credential's public key
and signature counter, never a secret. Each ceremony's challenge lives in memory for
five minutes under a random flow id, and is used once.

The relying party is the host name the page was opened at (``Host``), its origin the
page's own (scheme, host, port): a passkey made at ``play.example.org`` works there
only. Browsers allow WebAuthn on https pages and on ``http://localhost``, not on a bare
IP address (an RP ID is a domain name).
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Float, ForeignKey, Integer, String, Text, select, update
from sqlalchemy.orm import Mapped, mapped_column, sessionmaker
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from .accounts import Account, AccountError, AccountRow, Accounts, Window, check_name
from .store import Base

#: Seconds a ceremony's challenge stays valid.
CHALLENGE_TTL = 300.0
#: Ceremonies under way at once, server-wide (the oldest are dropped beyond).
MAX_FLOWS = 10_000
#: Passkeys one account may hold.
MAX_PASSKEYS = 10


class PasskeyRow(Base):
    __tablename__ = "bohnanza_passkeys"

    credential_id: Mapped[str] = mapped_column(String(512), primary_key=True)  # base64url
    account_id: Mapped[int] = mapped_column(Integer, ForeignKey("bohnanza_accounts.id"), index=True)
    public_key: Mapped[str] = mapped_column(Text)  # base64url of the COSE key
    sign_count: Mapped[int] = mapped_column(Integer)
    created: Mapped[float] = mapped_column(Float)
    used: Mapped[float] = mapped_column(Float)


@dataclass(slots=True)
class Flow:
    challenge: bytes
    purpose: str  # "register" or "login"
    expires: float
    account_id: int | None = None  # adding to a logged-in account
    name: str | None = None  # a new account's name (registering with a passkey alone)
    user_id: bytes = b""


class Passkeys:
    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts
        self._session = sessionmaker(accounts.store.engine, expire_on_commit=False)
        self.flows: dict[str, Flow] = {}
        self.starts = Window(30, 60.0)  # ceremonies begun per address a minute

    def _flow(self, flow: Flow, address: str) -> str:
        now = time.time()
        wait = self.starts.hit(address, now)
        if wait is not None:
            raise AccountError("too many passkey requests; try later", 429, "rate_limited", wait)
        for key in [k for k, f in self.flows.items() if f.expires < now]:
            del self.flows[key]
        while len(self.flows) >= MAX_FLOWS:
            self.flows.pop(next(iter(self.flows)))
        key = secrets.token_urlsafe(18)
        self.flows[key] = flow
        return key

    def _take(self, key: str, purpose: str) -> Flow:
        flow = self.flows.pop(key, None) if isinstance(key, str) else None
        if flow is None or flow.purpose != purpose or flow.expires < time.time():
            raise AccountError("this passkey request expired; start again", 400, "bad_flow")
        return flow

    # -------------------------------------------------------------- registration

    def register_start(
        self, rp_id: str, account: Account | None, name: str | None, address: str
    ) -> dict[str, Any]:
        """Options for ``navigator.credentials.create``: for the logged-in account, or
        (``name``) for a new account that will have no password."""
        if account is not None:
            shown, user_id = account.name, str(account.id).encode()
            with self._session() as s:
                existing = s.scalars(
                    select(PasskeyRow.credential_id).where(PasskeyRow.account_id == account.id)
                ).all()
            if len(existing) >= MAX_PASSKEYS:
                raise AccountError(
                    f"an account holds at most {MAX_PASSKEYS} passkeys", 409, "too_many"
                )
            exclude = [PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in existing]
        else:
            if name is None:
                raise AccountError("a name for the new account, or log in first", code="bad_name")
            shown, _key = check_name(name)
            if self.accounts.by_name(shown) is not None:
                raise AccountError(
                    "that name (or one that looks like it) is taken", 409, "name_taken"
                )
            # Counted as the ceremony starts, not as it ends: counted at the end, 30
            # ceremonies started at once all passed the check and made 29 accounts.
            wait = self.accounts.registrations.hit(address, time.time())
            if wait is not None:
                raise AccountError(
                    "too many new accounts from this address; try later", 429, "rate_limited", wait
                )
            user_id, exclude = secrets.token_bytes(16), []
        options = generate_registration_options(
            rp_id=rp_id,
            rp_name="Bohnanza",
            user_name=shown,
            user_id=user_id,
            user_display_name=shown,
            exclude_credentials=exclude,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
        )
        flow = Flow(
            options.challenge,
            "register",
            time.time() + CHALLENGE_TTL,
            account_id=account.id if account is not None else None,
            name=None if account is not None else shown,
            user_id=user_id,
        )
        return {"flow": self._flow(flow, address), "options": options_to_json(options)}

    def register_finish(
        self, key: str, credential: dict[str, Any], rp_id: str, origin: str, address: str
    ) -> tuple[Account, str | None]:
        """Store the passkey; a new account is made (with a session token) if the flow
        was for one."""
        flow = self._take(key, "register")
        try:
            verified = verify_registration_response(
                credential=credential,
                expected_challenge=flow.challenge,
                expected_rp_id=rp_id,
                expected_origin=origin,
            )
        except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
            raise AccountError(f"the passkey was not accepted: {exc}", 400, "bad_passkey") from None
        now = time.time()
        token: str | None = None
        with self._session() as s, s.begin():
            credential_id = bytes_to_base64url(verified.credential_id)
            if s.get(PasskeyRow, credential_id) is not None:
                raise AccountError("this passkey is registered already", 409, "passkey_taken")
            if flow.account_id is not None:
                account_id = flow.account_id
            else:
                assert flow.name is not None
                shown, name_key = check_name(flow.name)
                taken = s.scalar(select(AccountRow.id).where(AccountRow.name_key == name_key))
                if taken is not None:
                    raise AccountError("that name was taken meanwhile", 409, "name_taken")
                row = AccountRow(name=shown, name_key=name_key, password_hash=None, created=now)
                s.add(row)
                s.flush()
                account_id = row.id
                token = self.accounts._new_session(s, account_id, now)
            s.add(
                PasskeyRow(
                    credential_id=credential_id,
                    account_id=account_id,
                    public_key=bytes_to_base64url(verified.credential_public_key),
                    sign_count=verified.sign_count,
                    created=now,
                    used=now,
                )
            )
            acc = s.get(AccountRow, account_id)
            assert acc is not None
            account = Account(acc.id, acc.name, acc.created)
        return account, token

    # -------------------------------------------------------------- login

    def login_start(self, rp_id: str, address: str) -> dict[str, Any]:
        options = generate_authentication_options(
            rp_id=rp_id, user_verification=UserVerificationRequirement.PREFERRED
        )
        flow = Flow(options.challenge, "login", time.time() + CHALLENGE_TTL)
        return {"flow": self._flow(flow, address), "options": options_to_json(options)}

    def login_finish(
        self, key: str, credential: dict[str, Any], rp_id: str, origin: str
    ) -> tuple[Account, str]:
        flow = self._take(key, "login")
        raw_id = credential.get("id") if isinstance(credential, dict) else None
        if not isinstance(raw_id, str) or len(raw_id) > 512:
            raise AccountError("the passkey was not accepted", 400, "bad_passkey")
        with self._session() as s:
            row = s.get(PasskeyRow, raw_id)
            if row is None:
                raise AccountError("this passkey belongs to no account here", 401, "bad_login")
            try:
                verified = verify_authentication_response(
                    credential=credential,
                    expected_challenge=flow.challenge,
                    expected_rp_id=rp_id,
                    expected_origin=origin,
                    credential_public_key=base64url_to_bytes(row.public_key),
                    credential_current_sign_count=row.sign_count,
                )
            except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
                raise AccountError(
                    f"the passkey was not accepted: {exc}", 401, "bad_login"
                ) from None
            now = time.time()
            s.execute(
                update(PasskeyRow)
                .where(PasskeyRow.credential_id == raw_id)
                .values(sign_count=verified.new_sign_count, used=now)
            )
            token = self.accounts._new_session(s, row.account_id, now)
            acc = s.get(AccountRow, row.account_id)
            assert acc is not None
            account = Account(acc.id, acc.name, acc.created)
            s.commit()
        return account, token

    def count(self, account_id: int) -> int:
        with self._session() as s:
            return len(
                s.scalars(
                    select(PasskeyRow.credential_id).where(PasskeyRow.account_id == account_id)
                ).all()
            )
