"""Rule sets and modules resolved into one immutable :class:`GameConfig`.

Everything a game needs to know about "which game is this" is computed here once, at
creation: the deck's composition, hand sizes, prices, how many run-outs end the game,
and precomputed payout tables. The engine then only reads numbers from the config; the
behaviour that modules change lives in their hook classes (``bohnanza.modules``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .cards import Variety, catalogue, varieties
from .errors import ConfigError
from .frozen import FrozenDict

BASE_RULESETS = ("classic", "first-edition", "fasolki")
MODULE_BASE = "fasolki"

#: Modules added at run time (:func:`bohnanza.modules.register_module`), after those of
#: the data file: name -> its data, shaped like a ``[modules.NAME]`` table.
_REGISTERED: dict[str, Mapping[str, Any]] = {}


def module_names() -> tuple[str, ...]:
    """Every module: the data file's ``[modules]`` tables in order, then those registered
    at run time. The one list of modules (the hook classes are found from it)."""
    return (*catalogue()["modules"], *_REGISTERED)


def module_spec(name: str) -> Mapping[str, Any]:
    """A module's data (its ``[modules.NAME]`` table), or :class:`ConfigError`."""
    spec = _REGISTERED.get(name) or catalogue()["modules"].get(name)
    if spec is None:
        raise ConfigError(f"unknown module {name!r}; modules are: {', '.join(module_names())}")
    return spec


def _register_spec(name: str, spec: Mapping[str, Any] | None) -> None:
    """Add (or with ``None`` remove) a run-time module's data; configs made before are
    forgotten. Called by :func:`bohnanza.modules.register_module`."""
    if spec is None:
        _REGISTERED.pop(name, None)
    else:
        if name in catalogue()["modules"]:
            raise ConfigError(f"module {name!r} is already in the data file")
        _REGISTERED[name] = spec
    _make_config.cache_clear()


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything fixed for one game. Card ids index ``card_variety`` and ``card_kind``.

    Immutable, and shared by every game of the same rule set: ``options`` is a read-only
    mapping (:class:`bohnanza.frozen.FrozenDict`)."""

    rules: str
    base: str
    module: str | None
    players: int
    options: Mapping[str, str]
    varieties: tuple[str, ...]
    card_variety: tuple[int, ...]
    card_kind: tuple[str, ...]
    hand_sizes: tuple[int, ...]
    drawn_count: int
    draw_count: int
    field_price: int
    start_with_third_field: bool
    third_fields: int
    runouts_to_end: int
    end_immediately: bool
    payout: tuple[tuple[int, ...], ...] = field(repr=False)

    @property
    def deck_size(self) -> int:
        return len(self.card_variety)

    def variety_of(self, card: int) -> str:
        return self.varieties[self.card_variety[card]]

    def variety_index(self, key: str) -> int:
        try:
            return self.varieties.index(key)
        except ValueError:
            raise ConfigError(
                f"unknown variety {key!r} in {self.rules}; this game has: {', '.join(self.varieties)}"
            ) from None

    def describe(self, card: int) -> str:
        """A card as a player names it: ``Blue`` or ``Fasolkopająk (red)``."""
        name = varieties()[self.variety_of(card)].name
        kind = self.card_kind[card]
        return f"{name} ({kind})" if kind else name

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled (views sent to search workers) as what it is made from: the same
        # configuration comes back, shared from the cache, and a compiled core (whose
        # frozen dataclass refuses the field-by-field restore) pickles it too.
        return (make_config, (self.rules, self.players, dict(self.options)))


def split_rules(
    rules: str, modules: tuple[str, ...] | list[str] = ()
) -> tuple[str, tuple[str, ...]]:
    """``"fasolki+duel"`` → ``("fasolki", ("duel",))``; modules may also come separately."""
    parts = [p.strip() for p in rules.split("+") if p.strip()]
    if not parts:
        raise ConfigError(f"empty rule set name; choose one of: {', '.join(BASE_RULESETS)}")
    return parts[0], tuple(parts[1:]) + tuple(modules)


def player_range(rules: str) -> tuple[int, int]:
    """Allowed player counts (inclusive) of a rule set spelled like ``fasolki+duel``."""
    base, mods = split_rules(rules)
    _check_combination(base, mods)
    spec = module_spec(mods[0]) if mods else catalogue()["rulesets"][base]
    lo, hi = spec["players"]
    return int(lo), int(hi)


def all_rulesets() -> list[dict[str, Any]]:
    """Every playable rule set with its player counts and options (for ``bohnanza rules``)."""
    out: list[dict[str, Any]] = []
    for name in (*BASE_RULESETS, *(f"{MODULE_BASE}+{m}" for m in module_names())):
        lo, hi = player_range(name)
        base, mods = split_rules(name)
        spec = module_spec(mods[0]) if mods else catalogue()["rulesets"][base]
        options: dict[str, Any] = {}
        # A variety to leave out, chosen per game (R-NEW-45): from the variants' data.
        choose = {
            int(players): list(v["choose_remove"])
            for players, v in spec.get("variants", {}).items()
            if v.get("choose_remove")
        }
        if choose:
            values = next(iter(choose.values()))
            options["remove"] = {"values": values, "required_for_players": sorted(choose)}
        out.append({"rules": name, "min_players": lo, "max_players": hi, "options": options})
    return out


def _check_combination(base: str, mods: tuple[str, ...]) -> None:
    names = module_names()
    allowed = ", ".join((*BASE_RULESETS, *(f"{MODULE_BASE}+{m}" for m in names)))
    if base not in BASE_RULESETS:
        raise ConfigError(f"unknown rule set {base!r}; allowed: {allowed}")
    for m in mods:
        if m not in names:
            raise ConfigError(f"unknown module {m!r}; modules are: {', '.join(names)}")
    if mods and base != MODULE_BASE:
        raise ConfigError(
            f"module {mods[0]!r} plays only on top of {MODULE_BASE!r}, not {base!r}; allowed: {allowed}"
        )
    if len(mods) > 1:
        raise ConfigError(f"only one module at a time, got {' + '.join(mods)}; allowed: {allowed}")


def make_config(
    rules: object,
    players: object,
    options: Mapping[str, str] | None = None,
    modules: tuple[str, ...] | list[str] = (),
) -> GameConfig:
    """Resolve a rule set, module, player count and options, or raise :class:`ConfigError`.

    ``rules`` and ``players`` are typed ``object``: they often come from outside (a record,
    a request), and a wrong type gets a ``ConfigError`` here, in the compiled core too."""
    if not isinstance(rules, str):
        raise ConfigError(f"rule set must be a string, got {rules!r}")
    if not isinstance(players, int) or isinstance(players, bool):
        raise ConfigError(f"player count must be an integer, got {players!r}")
    try:
        key = tuple(sorted((str(k), v) for k, v in (options or {}).items()))
        hash(key)
    except TypeError:
        raise ConfigError(f"options must map names to strings, got {options!r}") from None
    return _make_config(rules, players, key, tuple(modules))


@lru_cache(maxsize=256)
def _make_config(
    rules: str, players: int, options: tuple[tuple[str, Any], ...], modules: tuple[str, ...]
) -> GameConfig:
    base, mods = split_rules(rules, modules)
    _check_combination(base, mods)
    module = mods[0] if mods else None
    name = f"{base}+{module}" if module else base
    if not isinstance(players, int) or isinstance(players, bool):
        raise ConfigError(f"player count must be an integer, got {players!r}")
    lo, hi = player_range(name)
    if not lo <= players <= hi:
        raise ConfigError(f"{name} is for {lo}–{hi} players, not {players}")
    opts = dict(options)
    for k, v in opts.items():
        if not isinstance(v, str):
            raise ConfigError(f"option {k} must be a string, got {v!r}")

    data = catalogue()
    base_spec: dict[str, Any] = data["rulesets"][base]
    mod_spec: Mapping[str, Any] = module_spec(module) if module else {}
    spec = mod_spec if module else base_spec
    variant: dict[str, Any] = dict(spec.get("variants", {}).get(str(players), {}))

    keys = [k for k in base_spec["varieties"] if k not in mod_spec.get("remove", [])]
    keys += [k for k in mod_spec.get("add", []) if k not in keys]
    removed = set(variant.get("remove", []))
    choices = variant.get("choose_remove")
    allowed_options = {"remove"} if choices else set()
    unknown = set(opts) - allowed_options
    if unknown:
        what = f"options: {', '.join(sorted(allowed_options))}" if allowed_options else "no options"
        raise ConfigError(f"unknown option(s) {', '.join(sorted(unknown))}; {name} takes {what}")
    if choices:
        choice = opts.get("remove")
        if choice not in choices:
            raise ConfigError(
                f"{name} with {players} players needs option remove={'|'.join(choices)} "
                f"(R-NEW-45), got {choice!r}"
            )
        removed.add(choice)
    keys = [k for k in keys if k not in removed]

    catalogue_v = varieties()
    composition: list[tuple[str, str, int]] = []
    kind_tables: Mapping[str, str] | None = mod_spec.get("kinds")
    if kind_tables:  # per-kind count tables (R-LADY-1: men, ladies, children)
        for k in keys:
            for kind, table in kind_tables.items():
                composition.append((k, kind, int(mod_spec[table][k])))
    else:
        for k in keys:
            kinds = data["varieties"][k].get("kinds")
            if kinds:
                composition += [(k, kind, int(n)) for kind, n in kinds.items()]
            else:
                composition.append((k, "", catalogue_v[k].count))

    card_variety: list[int] = []
    card_kind: list[str] = []
    for k, kind, n in composition:
        card_variety += [keys.index(k)] * n
        card_kind += [kind] * n
    per_variety = [card_variety.count(i) for i in range(len(keys))]
    payout = tuple(_payout_table(catalogue_v[k], per_variety[i]) for i, k in enumerate(keys))

    hands = list(variant.get("hands", [5]))
    hand_sizes = tuple(hands[min(i, len(hands) - 1)] for i in range(players))
    return GameConfig(
        rules=name,
        base=base,
        module=module,
        players=players,
        options=FrozenDict(opts),
        varieties=tuple(keys),
        card_variety=tuple(card_variety),
        card_kind=tuple(card_kind),
        hand_sizes=hand_sizes,
        drawn_count=2,
        draw_count=int(variant.get("draw", 3)),
        field_price=int(variant.get("field_price", 3)),
        start_with_third_field=bool(variant.get("start_with_third_field", False)),
        third_fields=int(spec.get("third_fields", base_spec["third_fields"])),
        runouts_to_end=int(variant.get("runouts", 3)),
        end_immediately=bool(base_spec.get("end_immediately", False)),
        payout=payout,
    )


def _payout_table(variety: Variety, cards: int) -> tuple[int, ...]:
    """Coins for 0..cards beans of one variety: the hot path then is one tuple lookup."""
    return tuple(variety.payout(n) for n in range(cards + 1))


#: The public names (tests/test_public_api.py; CHANGELOG.md says when they change).
__all__ = [
    "BASE_RULESETS",
    "MODULE_BASE",
    "GameConfig",
    "all_rulesets",
    "make_config",
    "module_names",
    "module_spec",
    "player_range",
    "split_rules",
]
