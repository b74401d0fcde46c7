"""The unit-card abilities that change geometry, as users name them in scenario files and as
`tmg units` shows them (the unit cards; rulebook §4.4, §4.6, §8.9.1, FAQ "측정과 이동").

Each ability is data on a unit: the catalogue gives every card's list with its source (the
rulebook line of the card text); a scenario may give `abilities = [...]` per unit to replace
it. Names are the English kebab-case ids below; the cards' Korean and English names are
accepted too.

>>> parse_ability("편대"), parse_ability("Raptor Strain"), parse_ability("LARGE")
('squadron', 'raptor-variant', 'large')
"""

from __future__ import annotations

from dataclasses import dataclass

from geom.model import ABILITIES, LARGE, METABOLIC_BOOST, RAPTOR_VARIANT, SQUADRON, STRUCTURE


@dataclass(frozen=True)
class AbilityInfo:
    id: str
    card_name: str  # the English card name (official army builder)
    name_ko: str  # the Korean card name (rulebook)
    rule: str  # the rulebook sections it changes
    effect: str  # what it changes, in the card's words
    applied: str  # what the engine does with it today

    def as_dict(self) -> dict[str, str]:
        return {"id": self.id, "card_name": self.card_name, "name_ko": self.name_ko,
                "rule": self.rule, "effect": self.effect, "applied": self.applied}


INFO: dict[str, AbilityInfo] = {a.id: a for a in (
    AbilityInfo(
        SQUADRON, "Squadron", "편대", "§4.4",
        'the unit\'s coherency distance is 4" instead of 3"',
        'coherency (tmg coherency), after-charge and disengage placement, deployment and '
        'marker contesting all use 4"'),
    AbilityInfo(
        RAPTOR_VARIANT, "Raptor Strain", "랩터 변종", "§4.3, §4.4, §8.5.3",
        "the unit may move through impassable terrain of Size 4 or less and change elevation "
        "without access points (not through FORCE FIELD tokens); its coherency links may cross "
        "what its leading model may (FAQ)",
        "moves, charges, deployment, disengage and close ranks cross terrain of Size 4 or "
        "less and the edges of such tops (not force fields); coherency links cross it too"),
    AbilityInfo(
        LARGE, "Large", "대형", "§4.6",
        'the leading model never passes a gap under 3" whatever its Size; a Size-0/1 '
        "impassable piece (not a token) its path crosses, or any model ends on, is removed "
        "from the game",
        'gaps of 3" for movement, charges and coherency links; moves and charges may end over '
        "Size-0/1 impassable pieces and name the pieces removed (`removed`)"),
    AbilityInfo(
        STRUCTURE, "Structure", "구조물", "§8.9.1",
        "the unit never activates or takes actions, counts as supply 0 and never contests or "
        "controls mission markers",
        "never contests markers (tmg markers)"),
    AbilityInfo(
        METABOLIC_BOOST, "Metabolic Boost", "대사 촉진", "§8.7.7",
        "Active (1 Biomass): when determining the unit's charge distance, roll 2D6 instead of "
        "D6 and add the higher result to its Speed",
        "tmg charge --metabolic-boost (the player's choice): min_roll, probability and --roll "
        "are those of the higher of two dice"),
)}

assert tuple(INFO) == ABILITIES

_ALIASES = {k.lower(): a.id for a in INFO.values()
            for k in (a.id, a.card_name, a.name_ko, a.card_name.replace(" ", "-"))}
_ALIASES["raptor variant"] = RAPTOR_VARIANT


def parse_ability(name: str) -> str | None:
    """The ability id for a name a user wrote (id, English or Korean card name), or None."""
    return _ALIASES.get(name.strip().lower())
