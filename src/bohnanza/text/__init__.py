"""A seat's game as text, and a command language for its answers (English and Polish).

This is the one command language of the project: the terminal game reads it, and language
model players (:mod:`bohnanza.agents.llm`, :mod:`bohnanza.textarena`) answer in it.

Cards are named by where the reader sees them, never by card id: ``1``…``n`` are places in
the reader's hand (1 = the front card), ``d1``, ``d2`` the turned-up cards, ``t1``… the
reader's trade area, ``o1``…, ``r1``… a module's public piles (ModuleInfo.pile_tokens). Fields are
numbered from 1. Varieties are written by key (``chili``), English or Polish name, or an
unambiguous prefix (``blu``). Commands, one per line::

    plant 1                         front hand card onto field 1 (phase 1)
    stop                            do not plant a second card
    offer 2 give 1,3 want chili:1   hand cards 1 and 3 to seat 2 for one Chili
    offer give d1                   a gift (seat left out: to the active player)
    accept 7 with 2,4               accept offer #7 giving hand cards 2 and 4
    decline 7 / withdraw 7          refuse an offer to you / take back your own
    end                             the active player ends trading
    plant t1 2                      trade-area card 1 onto field 2 (phase 3)
    harvest 2 / buy                 harvest field 2 / buy a third field
    pass                            nothing this round (trading, when not required)

A text built here is made only from a :class:`~bohnanza.views.View`, which holds nothing
its reader may not know (R-INFO-1…3); card ids never appear in it.

The module is a package split along its seams: :mod:`._words` (languages, keywords, card
places), :mod:`.render` (views and actions as text), :mod:`.parse` (commands to actions)
and :mod:`.prompt` (the language-model prompt). Everything is importable from here, as
it was from the single module.
"""

from __future__ import annotations

from ._words import (
    _BY_WORD as _BY_WORD,
)
from ._words import (
    _KEYWORD as _KEYWORD,
)
from ._words import (
    _SAY as _SAY,
)
from ._words import (
    _T as _T,
)
from ._words import (
    _WORDS as _WORDS,
)
from ._words import (
    LANGS as LANGS,
)
from ._words import (
    CommandError as CommandError,
)
from ._words import (
    Lang as Lang,
)
from ._words import (
    WrongPlace as WrongPlace,
)
from ._words import (
    _ as _,
)
from ._words import (
    _action_words as _action_words,
)
from ._words import (
    _field_number as _field_number,
)
from ._words import (
    _fold as _fold,
)
from ._words import (
    _kind_labels as _kind_labels,
)
from ._words import (
    _kind_word as _kind_word,
)
from ._words import (
    _pile_names as _pile_names,
)
from ._words import (
    _pile_prefixes as _pile_prefixes,
)
from ._words import (
    _places as _places,
)
from ._words import (
    _say as _say,
)
from ._words import (
    card_name as card_name,
)
from ._words import (
    card_token as card_token,
)
from ._words import (
    is_command as is_command,
)
from ._words import (
    parse_card as parse_card,
)
from ._words import (
    parse_variety as parse_variety,
)
from ._words import (
    rule_shapes as rule_shapes,
)
from ._words import (
    variety_count as variety_count,
)
from ._words import (
    variety_name as variety_name,
)
from ._words import (
    variety_word as variety_word,
)
from .parse import (
    _ARG_NAMES as _ARG_NAMES,
)
from .parse import (
    _arg_count as _arg_count,
)
from .parse import (
    _Arity as _Arity,
)
from .parse import (
    _arity as _arity,
)
from .parse import (
    _check_offer as _check_offer,
)
from .parse import (
    _commands as _commands,
)
from .parse import (
    _form as _form,
)
from .parse import (
    _no_args as _no_args,
)
from .parse import (
    _parse_args as _parse_args,
)
from .parse import (
    _parse_claim as _parse_claim,
)
from .parse import (
    _parse_param as _parse_param,
)
from .parse import (
    _pending_card as _pending_card,
)
from .parse import (
    check_answer as check_answer,
)
from .parse import (
    clean_line as clean_line,
)
from .parse import (
    parse_command as parse_command,
)
from .parse import (
    parse_offer as parse_offer,
)
from .parse import (
    pending_card as pending_card,
)
from .prompt import (
    RULES_EN as RULES_EN,
)
from .prompt import (
    RULES_PL as RULES_PL,
)
from .prompt import (
    _nth as _nth,
)
from .prompt import (
    game_facts as game_facts,
)
from .prompt import (
    module_commands as module_commands,
)
from .prompt import (
    module_rules as module_rules,
)
from .prompt import (
    render_prompt as render_prompt,
)
from .prompt import (
    rules_reference as rules_reference,
)
from .prompt import (
    system_prompt as system_prompt,
)
from .render import (
    _PHASES as _PHASES,
)
from .render import (
    MAX_OFFER_LINES as MAX_OFFER_LINES,
)
from .render import (
    _card_token as _card_token,
)
from .render import (
    _claim_word as _claim_word,
)
from .render import (
    _field_text as _field_text,
)
from .render import (
    _render_param as _render_param,
)
from .render import (
    _shown_text as _shown_text,
)
from .render import (
    _want_text as _want_text,
)
from .render import (
    event_note as event_note,
)
from .render import (
    event_text as event_text,
)
from .render import (
    offer_line as offer_line,
)
from .render import (
    pending_text as pending_text,
)
from .render import (
    phase_name as phase_name,
)
from .render import (
    render_action as render_action,
)
from .render import (
    render_action_safe as render_action_safe,
)
from .render import (
    render_moves as render_moves,
)
from .render import (
    render_offer as render_offer,
)
from .render import (
    render_view as render_view,
)

__all__ = [
    "LANGS",
    "CommandError",
    "Lang",
    "card_token",
    "check_answer",
    "clean_line",
    "event_note",
    "event_text",
    "game_facts",
    "is_command",
    "module_rules",
    "offer_line",
    "parse_card",
    "parse_command",
    "parse_offer",
    "parse_variety",
    "render_action",
    "render_moves",
    "render_offer",
    "render_prompt",
    "render_view",
    "rules_reference",
    "system_prompt",
]
