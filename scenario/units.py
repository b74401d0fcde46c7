"""Units, models and markers as scenario files write them (`[[unit]]`, `[[marker]]`).

A unit may name `type` to take its stats and abilities from the built-in catalogue; every field
it gives itself overrides the catalogue's. `abilities` lists the unit-card abilities that change
geometry (`scenario.abilities`: squadron, raptor-variant, large, structure — or the cards'
English or Korean names) and replaces the catalogue's list when given (`abilities = []`: none).
`large = true/false` adds or drops LARGE after that.
"""

from __future__ import annotations

from typing import Any

from formats.fields import (
    MAX_ABS,
    Ctx,
    boolean,
    fields,
    integer,
    listof,
    number,
    point,
    string,
)
from geom.errors import TmgError
from geom.model import (
    ABILITIES,
    LARGE,
    OWNERS,
    STRUCTURE,
    Base,
    Marker,
    Model,
    Speed,
    Unit,
    marker_colour,
)

from . import catalogue
from .abilities import parse_ability
from .refs import PREFIXES

UNIT_FIELDS = {"id", "type", "name", "owner", "size", "base_mm", "tags", "flying", "large",
               "abilities", "speed", "supply", "statuses", "leading", "models",
               "reserve", "coherent"}
MODEL_FIELDS = {"id", "at", "angle"}
MARKER_FIELDS = {"id", "at"}
STATUSES = {"burrowed", "hidden", "engaged", "activated", "shaken"}
RESERVED_UNIT_IDS = PREFIXES  # command-line reference prefixes: marker/N, terrain/ID, zone/OWNER


def catalogue_abilities(entry: dict[str, Any]) -> list[str]:
    """A catalogue entry's geometric abilities (its `abilities` list; older entries say
    `large` / `structure` as flags)."""
    if entry.get("abilities") is not None:
        return [str(a) for a in entry["abilities"]]
    out = []
    if entry.get("large"):
        out.append(LARGE)
    if entry.get("structure"):
        out.append(STRUCTURE)
    return out


def _abilities(ctx: Ctx, obj: str, given: Any, cat: dict[str, Any]) -> frozenset[str]:
    if given is None:
        return frozenset(catalogue_abilities(cat))
    out = set()
    for a in listof(ctx, obj, "abilities", given):
        name = string(ctx, obj, "abilities", a)
        ability = parse_ability(name)
        if ability is None:
            raise ctx.err(obj, "abilities", f"unknown ability {name.strip()!r} "
                          f"(known: {', '.join(ABILITIES)})")
        out.add(ability)
    return frozenset(out)


def _supply_for(profile: list[dict[str, Any]], n: int) -> float | None:
    fitting = [p for p in profile if p.get("models") is not None and p["models"] <= n
               and p.get("supply") is not None]
    if fitting:
        return float(max(fitting, key=lambda p: p["models"])["supply"])
    return None


def parse_unit(ctx: Ctx, e: Any, index: int) -> Unit:
    label = f"unit #{index + 1}"
    e = fields(ctx, label, e, UNIT_FIELDS)
    if "id" not in e:
        raise ctx.err(label, "id", "missing")
    uid = string(ctx, label, "id", e["id"])
    if "/" in uid or "," in uid:
        raise ctx.err(f"unit {uid!r}", "id", "must not contain '/' or ',' (the command line "
                      "writes UNIT/MODEL and separates ids with commas)")
    if uid in RESERVED_UNIT_IDS:
        raise ctx.err(f"unit {uid!r}", "id", "is reserved for references on the command line "
                      "(marker/N, terrain/ID, zone/OWNER)")
    obj = f"unit {uid!r}"
    cat: dict[str, Any] = {}
    if "type" in e:
        tname = string(ctx, obj, "type", e["type"])
        found = catalogue.find(tname)
        if found is None:
            raise ctx.err(obj, "type", f"unknown unit type {tname!r}"
                          f"{catalogue.did_you_mean(tname)} (see `tmg units`)")
        cat = found

    def pick(field: str, cat_field: str | None = None) -> Any:
        if field in e:
            return e[field]
        return cat.get(cat_field or field)

    if "owner" not in e:
        raise ctx.err(obj, "owner", "missing")
    owner = e["owner"]
    if owner not in OWNERS:
        raise ctx.err(obj, "owner", f"must be red or blue, got {owner!r}")
    size_v = pick("size")
    if size_v is None:
        raise ctx.err(obj, "size", "missing (and the catalogue gives none)"
                      if cat else "missing")
    size = integer(ctx, obj, "size", size_v, lo=0)
    base_v = pick("base_mm")
    if base_v is None:
        raise ctx.err(obj, "base_mm", "missing")
    if isinstance(base_v, list):
        if len(base_v) != 2:
            raise ctx.err(obj, "base_mm", "an oval is [long, short]")
        base = Base.from_mm((number(ctx, obj, "base_mm", base_v[0], positive=True),
                             number(ctx, obj, "base_mm", base_v[1], positive=True)))
    else:
        base = Base.from_mm(number(ctx, obj, "base_mm", base_v, positive=True))
    flying = boolean(ctx, obj, "flying", pick("flying") if pick("flying") is not None else False)
    abilities = _abilities(ctx, obj, e.get("abilities"), cat)
    large = LARGE in abilities if "large" not in e else boolean(ctx, obj, "large", e["large"])
    abilities = abilities | {LARGE} if large else abilities - {LARGE}
    tags_v = pick("tags") or []
    tags = [string(ctx, obj, "tags", t).lower() for t in listof(ctx, obj, "tags", tags_v)]
    tags = [t for t in tags if t not in ("ground", "flying")]
    tags.insert(0, "flying" if flying else "ground")
    speed = None
    sv = pick("speed")
    if sv is not None and sv != "-":  # "-": the card prints a dash (no Speed)
        try:
            speed = Speed.parse(sv)
        except (TmgError, ValueError):
            raise ctx.err(obj, "speed", f"expected an integer or 'a/b', got {sv!r}") from None
        values = [speed.normal] + ([speed.alone] if speed.alone is not None else [])
        if not all(0 <= v <= MAX_ABS for v in values):
            raise ctx.err(obj, "speed", f"must be between 0 and {MAX_ABS:g}, got {sv!r}")
    statuses = tuple(string(ctx, obj, "statuses", s).lower()
                     for s in listof(ctx, obj, "statuses", e.get("statuses", [])))
    for s in statuses:
        if s not in STATUSES:
            raise ctx.err(obj, "statuses", f"unknown status {s!r} "
                          f"(known: {', '.join(sorted(STATUSES))})")
    reserve = boolean(ctx, obj, "reserve", e["reserve"]) if e.get("reserve") is not None \
        else False
    # §4.4: in coherency at the end of its last moving action (absent or null: not recorded)
    coherent = boolean(ctx, obj, "coherent", e["coherent"]) if e.get("coherent") is not None \
        else None
    if "models" not in e:
        raise ctx.err(obj, "models", "missing")
    raw_models = listof(ctx, obj, "models", e["models"])
    if not raw_models:
        raise ctx.err(obj, "models", "a unit needs at least one model")
    models: list[Model] = []
    seen: set[str] = set()
    for i, m in enumerate(raw_models):
        if reserve and isinstance(m, str) and m.strip():
            mid, at, angle = m, (0.0, 0.0), 0.0  # in reserve: a model is its id alone
        elif isinstance(m, list | tuple):
            mid, at, angle = str(i + 1), point(ctx, obj, f"models[{i}]", m), 0.0
        else:
            mt = fields(ctx, f"{obj} model #{i + 1}", m, MODEL_FIELDS)
            mid = str(mt["id"]) if "id" in mt else str(i + 1)
            mobj = f"unit {uid!r} model {mid!r}"
            if "id" in mt and (isinstance(mt["id"], bool) or not isinstance(mt["id"], str | int)):
                raise ctx.err(mobj, "id", f"expected a string, got {mt['id']!r}")
            if not mid.strip():
                raise ctx.err(f"{obj} model #{i + 1}", "id", f"expected a non-empty id, got "
                              f"{mid!r}")
            if "at" not in mt and not reserve:
                raise ctx.err(mobj, "at", "missing")
            at = point(ctx, mobj, "at", mt["at"]) if "at" in mt else (0.0, 0.0)
            angle = number(ctx, mobj, "angle", mt.get("angle", 0.0))
        if mid in seen:
            raise ctx.err(f"unit {uid!r} model {mid!r}", "id", "duplicate model id")
        seen.add(mid)
        models.append(Model(
            id=mid, unit=uid, owner=owner, at=at, base=base, size=size, angle=angle,
            flying=flying, large=large, burrowed="burrowed" in statuses,
            hidden="hidden" in statuses, tags=tuple(tags)))
    supply_v = e.get("supply")
    if supply_v is not None:
        supply: float | None = number(ctx, obj, "supply", supply_v, nonneg=True)
    else:
        supply = _supply_for(cat.get("supply_profile") or [], len(models))
    leading = e.get("leading")
    if leading is not None:
        leading = str(leading) if isinstance(leading, int) and not isinstance(leading, bool) \
            else string(ctx, obj, "leading", leading)
        if leading not in seen:
            raise ctx.err(obj, "leading", f"no model {leading!r} in this unit")
    return Unit(id=uid, owner=owner, size=size, models=tuple(models), base=base,
                tags=tuple(tags), flying=flying, large=large, speed=speed, supply=supply,
                statuses=statuses, leading=leading, type=cat.get("id"), reserve=reserve,
                coherent=coherent,
                name=(string(ctx, obj, "name", e["name"]) if e.get("name") is not None
                      else cat.get("name")), abilities=abilities)


def parse_marker(ctx: Ctx, e: Any, index: int) -> Marker:
    label = f"marker #{index + 1}"
    e = fields(ctx, label, e, MARKER_FIELDS)
    if "id" not in e:
        raise ctx.err(label, "id", "missing")
    mid = integer(ctx, label, "id", e["id"], lo=1, hi=5)
    if "at" not in e:
        raise ctx.err(f"marker {mid}", "at", "missing")
    return Marker(mid, point(ctx, f"marker {mid}", "at", e["at"]), marker_colour(mid))
