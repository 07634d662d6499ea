"""A trained policy as an agent, with numpy only: the spec ``rl:PATH``.

``PATH`` is a policy file written by ``bohnanza train export`` (:func:`save_policy`): an
``.npz`` holding the policy network's weights (an MLP: hidden layers, then the action
logits) and, as JSON, what the network was trained on (rule set, players, options,
action mode, observation and action sizes, trade rounds) and where it came from (the
training commit and command). Playing needs numpy and the ``rl`` extra's encoding, never
torch, so that a tournament, the web lobby or a spawned worker can load it cheaply.

At each question the agent builds the environment's observation and mask from its view
(:class:`bohnanza.rl.encoding.Encoding`), runs the network, and plays the masked
arg-max (``rl:PATH``; deterministic) or samples from the masked softmax with its seed
(``rl:PATH:sample``, or ``rl:PATH:t0.5`` for a temperature). The index is decoded into an
engine action exactly as the environment does.

The observation's trading-round count is the environment's public counter, which a view
does not carry; the agent counts its own questions in phase 2 of a turn instead (each
round asks every seat once, R-TRADE-6, so the count matches the environment's in the
driver's schedule).

Builder-mode policies (``action_mode="builder"``, :mod:`bohnanza.rl.builder`) compose an
offer or a payment over several masked steps; the agent runs those steps itself inside
one question, as the environment does: mask, observation with the open draft, choice,
until a step yields an engine action. The builder asks the engine whether the seat's
own offer is legal; an agent has a view and no game, so it asks a game determinised from
its view (:meth:`bohnanza.game.Game.determinise`): an own offer's legality depends only
on what the seat sees.

Policies with memory (``memory: true``) need the public record of every action; an agent
is only shown views at its own questions, so :class:`ViewMemory` rebuilds the record from
the successive views it is shown (see there for where that differs from the
environment's record, which sees every action).

Specs spell the path in full; ``rl:PATH`` in a worker process (any start method) loads
the file again there (files are cached per process by path and modification time).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..actions import Action, ActionType, Offer
from ..agents.base import Agent
from ..errors import ConfigError
from ..game import Game
from ..rules import GameConfig
from ..views import View
from .builder import Builder, Draft
from .encoding import Encoding
from .memory import Memory

#: The format tag in every policy file (bumped when the layout changes).
FORMAT = "bohnanza-policy-1"
ACTIVATIONS = ("tanh", "relu")


class NumpyPolicy:
    """An MLP policy read from a policy file: ``logits(obs)`` and masked choices."""

    def __init__(
        self,
        hidden: Sequence[tuple[NDArray[np.float32], NDArray[np.float32]]],
        action: tuple[NDArray[np.float32], NDArray[np.float32]],
        activation: str,
        meta: Mapping[str, Any],
    ) -> None:
        if activation not in ACTIVATIONS:
            raise ConfigError(f"unknown activation {activation!r}: use {', '.join(ACTIVATIONS)}")
        self.hidden = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in hidden]
        self.action = (np.asarray(action[0], np.float32), np.asarray(action[1], np.float32))
        self.activation = activation
        self.meta = dict(meta)
        width = self.hidden[0][0].shape[1] if self.hidden else self.action[0].shape[1]
        if int(self.meta.get("obs_size") or width) != width:
            raise ConfigError(
                f"policy file: obs_size {self.meta.get('obs_size')} but the first layer takes {width}"
            )

    @property
    def obs_size(self) -> int:
        w = self.hidden[0][0] if self.hidden else self.action[0]
        return int(w.shape[1])

    @property
    def n_actions(self) -> int:
        return int(self.action[0].shape[0])

    def logits(self, obs: NDArray[np.float32]) -> NDArray[np.float32]:
        """Action logits of one observation (or a batch, one per row)."""
        h = np.asarray(obs, dtype=np.float32)
        for w, b in self.hidden:
            h = h @ w.T + b
            h = np.tanh(h) if self.activation == "tanh" else np.maximum(h, 0.0)
        out: NDArray[np.float32] = h @ self.action[0].T + self.action[1]
        return out

    def choose(
        self,
        obs: NDArray[np.float32],
        mask: NDArray[np.int8],
        rng: np.random.Generator | None = None,
        temperature: float = 0.0,
        groups: NDArray[np.intp] | None = None,
    ) -> int:
        """The masked arg-max (``temperature`` 0), or a sample from the masked softmax.

        With ``groups`` (a group number per index: the encoding's segment, i.e. the kind
        of action) a greedy choice first takes the group with the most probability in
        all, then the likeliest index in it. A plain arg-max is biased against kinds of
        action that are spread over many indices: a cloned policy that offers in 60% of
        a state's probability, over forty offers of 1.5% each, still passes (40%, one
        index) under the arg-max. Sampling needs no grouping: it draws the kind with its
        total probability anyway."""
        z = self.logits(obs).astype(np.float64)
        legal = mask.astype(bool)
        if not legal.any():
            raise ValueError("no legal action in the mask")
        z = np.where(legal, z, -np.inf)
        if temperature <= 0 or rng is None:
            if groups is None:
                return int(np.argmax(z))
            p = np.exp(z - z[legal].max())
            best = int(np.argmax(np.bincount(groups, weights=p)))
            return int(np.argmax(np.where(groups == best, z, -np.inf)))
        z = (z - z[legal].max()) / temperature
        p = np.exp(z)
        p /= p.sum()
        return int(rng.choice(len(p), p=p))

    # ------------------------------------------------------------------ files

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the policy file (see :func:`save_policy`)."""
        save_policy(path, self.hidden, self.action, self.activation, self.meta)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> NumpyPolicy:
        """Read a policy file, or raise ConfigError saying what is wrong with it."""
        p = Path(path)
        if not p.is_file():
            raise ConfigError(f"no policy file {str(p)!r}")
        try:
            with np.load(p, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                n = int(data["n_hidden"])
                hidden = [(data[f"w{i}"], data[f"b{i}"]) for i in range(n)]
                action = (data["w_action"], data["b_action"])
                activation = str(data["activation"])
        except (OSError, KeyError, ValueError) as exc:
            raise ConfigError(f"{str(p)!r} is not a policy file: {exc}") from None
        if meta.get("format") != FORMAT:
            raise ConfigError(f"{str(p)!r}: format {meta.get('format')!r}, expected {FORMAT!r}")
        return cls(hidden, action, activation, meta)


def save_policy(
    path: str | os.PathLike[str],
    hidden: Sequence[tuple[NDArray[Any], NDArray[Any]]],
    action: tuple[NDArray[Any], NDArray[Any]],
    activation: str,
    meta: Mapping[str, Any],
) -> None:
    """Write a policy file: the weights as float32 arrays (``w0``, ``b0``, … for the hidden
    layers, ``w_action``/``b_action`` for the logits, each weight ``out × in``) and
    ``meta`` as JSON (the training configuration and provenance)."""
    arrays: dict[str, Any] = {
        "n_hidden": np.int64(len(hidden)),
        "activation": np.str_(activation),
        "meta": np.str_(json.dumps({**meta, "format": FORMAT}, sort_keys=True)),
        "w_action": np.asarray(action[0], np.float32),
        "b_action": np.asarray(action[1], np.float32),
    }
    for i, (w, b) in enumerate(hidden):
        arrays[f"w{i}"] = np.asarray(w, np.float32)
        arrays[f"b{i}"] = np.asarray(b, np.float32)
    # Written beside and renamed into place: a league's workers list and load snapshots
    # while the trainer writes new ones, and must never read half a file.
    tmp = f"{os.fspath(path)}.tmp"
    with open(tmp, "wb") as f:
        np.savez_compressed(f, **arrays)
    os.replace(tmp, path)


_POLICIES: dict[str, tuple[float, NumpyPolicy]] = {}
_ENCODINGS: dict[tuple[int, int], Encoding] = {}
_BUILDERS: dict[int, Builder] = {}
#: The action modes an agent plays (those of the environment).
AGENT_MODES = ("flat", "builder")
#: The most builder steps one question may take (a draft holds a few cards and wants;
#: a policy that keeps adding and cancelling is stopped and its choice passed over).
MAX_BUILDER_STEPS = 64


def load_policy(path: str) -> NumpyPolicy:
    """:meth:`NumpyPolicy.load`, cached per process by path and modification time."""
    key = os.path.abspath(path)
    try:
        mtime = os.path.getmtime(key)
    except OSError:
        raise ConfigError(f"no policy file {path!r}") from None
    hit = _POLICIES.get(key)
    if hit is not None and hit[0] == mtime:
        return hit[1]
    policy = NumpyPolicy.load(key)
    _POLICIES[key] = (mtime, policy)
    return policy


def encoding_for(config: GameConfig, max_trade_rounds: int) -> Encoding:
    """One :class:`Encoding` per configuration and process (building one takes a while)."""
    key = (id(config), max_trade_rounds)
    enc = _ENCODINGS.get(key)
    if enc is None or enc.config is not config:
        enc = _ENCODINGS[key] = Encoding(config, max_trade_rounds)
    return enc


def builder_for(enc: Encoding) -> Builder:
    """One :class:`Builder` per encoding and process."""
    b = _BUILDERS.get(id(enc))
    if b is None or b.enc is not enc:
        b = _BUILDERS[id(enc)] = Builder(enc)
    return b


# ---------------------------------------------------------------------------- memory


class ViewMemory:
    """The memory part (:class:`bohnanza.rl.memory.Memory`) kept from the views one seat is
    shown at its own questions, for an agent that sees no other action.

    The environment records every action with the public view after it. Here each new
    view is recorded as one step after the last one, with the trading read off the
    difference: an offer that appeared was proposed by its proposer; one that vanished
    while trading went on was accepted by its partner (the partner's trade area grew),
    else declined by its partner, or withdrawn by its proposer when the proposer is this
    seat and it withdrew it; this seat's own actions are known exactly. Where it differs
    from the environment's record: an offer proposed and gone between two views is not
    seen; a decline and a withdrawal by two other seats are not told apart (a vanished
    offer is counted as its partner's decline); cards that come into sight and leave it
    between two views are not counted as gone (a field planted and harvested in between),
    and the coins of two harvests in one step are not told apart. In the driver's
    schedule a seat is asked in every trading round, so the trading counts mostly agree;
    the unseen-cards part lags where whole turns pass between two questions.
    """

    def __init__(self, encoding: Encoding) -> None:
        self.memory = Memory(encoding)
        self._last: View | None = None
        self._mine: Action | None = None
        self._seat = -1

    def reset(self) -> None:
        self.memory.reset(None)
        self._last = None
        self._mine = None

    @staticmethod
    def public(view: View) -> View:
        """The spectator's part of a seat's view: no hand, no treasury, and the seat's own
        offers without the ids of the hand cards they give (a spectator sees only their
        kinds; the memory counts a card id in sight once, and the hand's are the seat's)."""
        me = view.seat
        drawn = set(view.drawn)
        offers = tuple(
            o._replace(give=tuple(c if c in drawn else None for c in o.give))
            if o.proposer == me
            else o
            for o in view.offers
        )
        return view._replace(seat=None, hand=None, treasury=None, offers=offers)

    def update(self, view: View) -> None:
        """Record what changed since the last view this seat was shown."""
        assert view.seat is not None
        pub = self.public(view)
        last = self._last
        if last is None or view.turn < last.turn:
            self.memory.reset(pub)
            self._last, self._mine, self._seat = view, None, view.seat
            return
        if pub == self.public(last):
            return
        seat = view.seat
        mine = self._mine
        self._mine = None
        done: list[tuple[int, Action | None]] = [(seat, mine)]
        later: list[tuple[int, Action | None]] = []
        if view.phase == "trade":
            same_turn = view.turn == last.turn
            # Offers of an earlier turn were cleared when its trading ended: only this
            # turn's offers are compared.
            old = {o.offer_id: o for o in last.offers} if same_turn else {}
            now = {o.offer_id for o in view.offers}
            proposers = {o.proposer for o in view.offers if o.offer_id not in old}
            new = [(p, Action.propose(Offer(p))) for p in sorted(proposers - {seat})]
            (done if same_turn else later).extend(new)
            known = mine.offer_id if mine is not None else None
            for oid, o in old.items():
                if oid in now or oid == known:
                    continue
                if o.to == seat:  # not answered by this seat: withdrawn by its proposer
                    done.append((o.proposer, Action.withdraw(oid)))
                    continue
                grew = len(view.seats[o.to].trade_area) > len(last.seats[o.to].trade_area)
                done.append((o.to, Action.accept(oid) if grew else Action.decline(oid)))
        self.memory.record_all(done, pub, later)
        self._last = view

    def note(self, action: Action | None) -> None:
        """This seat's own answer (recorded with the next view)."""
        self._mine = action

    def block(self, view: View) -> NDArray[np.float32]:
        return self.memory.block(view)


# ---------------------------------------------------------------------------- actions


def action_index(
    enc: Encoding, view: View, action: Action | None, mask: NDArray[np.int8]
) -> int | None:
    """The flat index that plays ``action`` (``None``: pass) in ``view``, or ``None`` when
    the encoding cannot name it or the mask forbids it.

    An offer maps to its template (:meth:`Encoding.offer_index`) when it gives one or two
    cards of one give class for nothing or one card: the template's canonical cards may
    be other cards of the same class. Every accept of an offer maps to its canonical
    payment, as in :meth:`Encoding.index_of`. Behaviour cloning uses it to label a bot's
    choices."""
    if action is None:
        i: int | None = enc.base("pass") if "pass" in enc.segments else None
    elif action.type is ActionType.PROPOSE:
        i = _offer_template(enc, view, action)
    else:
        i = enc.index_of(view, action)
    if i is None or not 0 <= i < len(mask) or not mask[i]:
        return None
    return i


def _offer_template(enc: Encoding, view: View, action: Action) -> int | None:
    offer = action.offer
    if offer is None or view.seat is None or "offer" not in enc.segments:
        return None
    k = len(offer.give)
    if k not in (1, 2) or len(offer.want) > 1 or (offer.want and offer.want[0][1] != 1):
        return None
    declared = bool(offer.declared)
    table = enc._card_declared_classes if declared else enc._card_classes
    classes = table[offer.give[0]]
    if not classes:
        return None
    g = classes[0]
    if any(g not in table[c] for c in offer.give):
        return None
    w = None
    if offer.want:
        v = offer.want[0][0]
        if v not in enc.varieties:
            return None
        w = enc.varieties.index(v)
    partner = (offer.to - view.seat) % enc.n
    if partner == 0:
        return None
    return enc.offer_index(partner, g, k, w)


# ---------------------------------------------------------------------------- agent


def policy_parameters(text: str) -> dict[str, Any]:
    """``PATH`` (greedy), ``PATH:grouped`` (greedy over kinds of action first, see
    :meth:`NumpyPolicy.choose`), ``PATH:sample`` (sample at temperature 1) or ``PATH:tT``
    (sample at temperature T; ``t0`` is greedy). The path is everything before a
    recognised last part, so it may hold colons."""
    path, sep, last = text.rpartition(":")
    temperature = 0.0
    grouped = False
    if sep and last == "sample":
        temperature = 1.0
    elif sep and last == "greedy":
        temperature = 0.0
    elif sep and last == "grouped":
        grouped = True
    elif sep and last.startswith("t") and _is_number(last[1:]):
        temperature = float(last[1:])
        if temperature < 0:
            raise ConfigError("rl: a temperature must be 0 or more")
    else:
        path = text
    path = path.strip()
    if not path:
        raise ConfigError("rl: needs a policy file, rl:PATH (written by bohnanza train export)")
    load_policy(path)  # a missing or broken file fails here, before any game starts
    out: dict[str, Any] = {"path": path, "temperature": temperature}
    if grouped:
        out["grouped"] = True
    return out


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


class PolicyAgent(Agent):
    """A trained policy (``rl:PATH``): the masked arg-max of its network over the
    environment's actions (flat indices, or builder steps), or seeded samples
    (``rl:PATH:sample``)."""

    name = "rl"
    # It builds its offer templates from the view, as the environment does.
    proposes = False
    spec_params = staticmethod(policy_parameters)

    def __init__(
        self, seed: int = 0, path: str = "", temperature: float = 0.0, grouped: bool = False
    ) -> None:
        super().__init__(seed)
        if not path:
            raise ConfigError("rl: needs a policy file, rl:PATH")
        self.path = path
        self.policy = load_policy(path)
        self.temperature = float(temperature)
        #: Whether a greedy choice takes the likeliest kind of action first.
        self.grouped = grouped
        self._groups: NDArray[np.intp] | None = None
        self.rng = np.random.default_rng(seed)
        meta = self.policy.meta
        mode = meta.get("action_mode", "flat")
        if mode not in AGENT_MODES:
            raise ConfigError(
                f"{path!r}: action mode {mode!r}; agents play {', '.join(AGENT_MODES)}"
            )
        #: Whether offers and payments are composed step by step (builder mode).
        self.builder_mode = mode == "builder"
        #: Whether the observation carries the memory part.
        self.uses_memory = bool(meta.get("memory", False))
        self._builder: Builder | None = None
        self._memory: ViewMemory | None = None
        self.max_trade_rounds = int(meta.get("max_trade_rounds", 6))
        self._enc: Encoding | None = None
        self._round_key: tuple[int, int] = (-1, -1)
        self._rounds = 0

    def _encoding(self, view: View) -> Encoding:
        enc = self._enc
        if enc is None or enc.config is not view.config:
            enc = encoding_for(view.config, self.max_trade_rounds)
            builder = builder_for(enc) if self.builder_mode else None
            memory = ViewMemory(enc) if self.uses_memory else None
            obs_size = enc.obs_size
            n_actions = enc.n_actions
            if builder is not None:
                obs_size += builder.draft_size
                n_actions = builder.n_actions
            if memory is not None:
                obs_size += memory.memory.size
            p = self.policy
            if obs_size != p.obs_size or n_actions != p.n_actions:
                meta = p.meta
                raise ConfigError(
                    f"policy {self.path!r} was trained for {meta.get('rules')!r} with "
                    f"{meta.get('players')} players ({p.obs_size} observation values, "
                    f"{p.n_actions} actions); this game needs {obs_size} and {n_actions}"
                )
            self._enc = enc
            self._builder = builder
            self._memory = memory
            self._groups = None
        return enc

    def _segment_groups(self, enc: Encoding) -> NDArray[np.intp]:
        """Each index's segment (kind of action) as a number, for a grouped choice."""
        if self._groups is None:
            segment_of = self._builder.segment_of if self._builder is not None else enc.segment_of
            numbers: dict[str, int] = {}
            self._groups = np.array(
                [
                    numbers.setdefault(segment_of(i)[0], len(numbers))
                    for i in range(self.policy.n_actions)
                ],
                dtype=np.intp,
            )
        return self._groups

    def observation(
        self, view: View, trade_round: int, draft: Draft | None = None
    ) -> NDArray[np.float32]:
        """The environment's observation for this seat: the encoding's, then the open
        draft (builder mode), then the memory part (with memory)."""
        enc = self._encoding(view)
        obs = enc.observe(view, trade_round)
        parts = [obs]
        if self._builder is not None:
            parts.append(self._builder.observe_draft(view, draft))
        if self._memory is not None:
            parts.append(self._memory.block(view))
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def _trade_round(self, view: View) -> int:
        trade_round = 0
        if view.phase == "trade" and view.pending is None:
            key = (view.turn, view.active)
            if key != self._round_key:
                self._round_key, self._rounds = key, 0
            trade_round = min(self._rounds, self.max_trade_rounds)
            self._rounds += 1
        return trade_round

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        enc = self._encoding(view)
        if self._memory is not None:
            self._memory.update(view)
        trade_round = self._trade_round(view)
        mask = enc.mask(view, legal, not required)
        if not mask.any():  # nothing the encoding can name: the engine's first choice
            choice = legal[0] if legal else None
        elif self._builder is None:
            obs = self.observation(view, trade_round)
            groups = self._segment_groups(enc) if self.grouped else None
            index = self.policy.choose(obs, mask, self.rng, self.temperature, groups)
            choice = enc.decode(view, index)
        else:
            choice = self._build(view, trade_round, mask, self._builder)
        if self._memory is not None:
            self._memory.note(choice)
        return choice

    def _build(
        self, view: View, trade_round: int, flat: NDArray[np.int8], builder: Builder
    ) -> Action | None:
        """Run the builder's steps, as the environment does, until one yields an action."""
        game: Game | None = None
        if builder.trading and view.phase == "trade":
            # The builder asks the engine about the seat's own offers (legal or not),
            # which depend only on what the seat sees: a determinised game answers.
            game = Game.determinise(view, random.Random(self.seed))
        draft: Draft | None = None
        blocked = False
        groups = self._segment_groups(builder.enc) if self.grouped else None
        for _ in range(MAX_BUILDER_STEPS):
            # Outside trading the builder never asks the game (no offers, no draft).
            mask = builder.mask(game, view.seat, view, flat, draft, blocked)  # type: ignore[arg-type]
            obs = self.observation(view, trade_round, draft)
            index = self.policy.choose(obs, mask, self.rng, self.temperature, groups)
            step, draft = builder.step(view, index, draft)
            if step.done:
                return step.action
            if draft is None:
                blocked = True  # cancelled: no new draft in this question
        # A policy that never finishes: the first choice the flat mask allows.
        return builder.enc.decode(view, int(np.flatnonzero(flat)[0]))


__all__ = [
    "AGENT_MODES",
    "FORMAT",
    "NumpyPolicy",
    "PolicyAgent",
    "ViewMemory",
    "action_index",
    "builder_for",
    "encoding_for",
    "load_policy",
    "policy_parameters",
    "save_policy",
]
