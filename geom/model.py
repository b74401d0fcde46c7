"""Plain data classes for the battlefield: table, terrain pieces, models, units, markers,
deployment (rulebook §4.1, §5.6, §7.1, §7.3; coordinates: docs/rules.md#coordinates).

Nothing here decides a rule; the rule modules (`elevation`, `distance`, `sight`, …) take these
objects and return verdicts. All lengths are inches; angles are degrees counter-clockwise from
the x axis. Everything is immutable so that queries can cache freely.

>>> m = Model.make("m1", unit="marines", owner="red", at=(5, 5), base=Base.from_mm(32), size=2)
>>> round(m.base.long, 4)
1.2598
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property

from shapely.geometry import LineString, Polygon
from shapely.geometry.base import BaseGeometry

from .errors import TmgError
from .prepared import Prepared
from .tolerance import SAME_AXES

MM_PER_INCH = 25.4
MARKER_DIAMETER_MM = 32.0  # §7.3.2

Point = tuple[float, float]

TERRAIN_KINDS = ("solid", "grass", "ramp", "token", "force-field")
OWNERS = ("red", "blue")

# Unit-card abilities that change geometry (unit cards; rulebook §4.4, §4.6, §8.9.1). Rules ask a unit
# `unit.has(SQUADRON)`; nothing is keyed on a unit's name. The catalogue gives each card's list
# with its source; a scenario may override it per unit.
SQUADRON = "squadron"            # 편대: coherency distance 4" instead of 3" (§4.4)
RAPTOR_VARIANT = "raptor-variant"  # 랩터 변종: crosses impassable terrain up to Size 4,
#                                    changes elevation without access points (not force fields)
LARGE = "large"                  # 대형: never a gap under 3"; Size-0/1 pieces it crosses go
STRUCTURE = "structure"          # STRUCTURE: never contests mission markers (§8.9.1)
METABOLIC_BOOST = "metabolic-boost"  # 대사 촉진 (Active, opt-in): the charge distance rolls 2D6
#                                      and adds the higher (§8.7.7 step 2)
ABILITIES = (SQUADRON, RAPTOR_VARIANT, LARGE, STRUCTURE, METABOLIC_BOOST)
COHERENCY_DISTANCE = 3.0         # §4.4
SQUADRON_COHERENCY_DISTANCE = 4.0


def inches(mm: float) -> float:
    return mm / MM_PER_INCH


def natural_key(model_id: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key for ids that puts "2" before "10" and "m2" before "m10".

    >>> sorted(["m10", "m2", "1", "b"], key=natural_key)
    ['1', 'b', 'm2', 'm10']
    """
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p)
                 for p in re.split(r"(\d+)", model_id) if p)


@dataclass(frozen=True)
class Table:
    """The playing surface, a rectangle with a corner at (0, 0) (docs/rules.md#coordinates).

    Parameters
    ----------
    width : float
        The x extent in inches (the long edge on a standard 54" x 36" table).
    depth : float
        The y extent in inches.

    Returns
    -------
    Table
        The table; `polygon` is its outline and `centre` its middle.

    Examples
    --------
    >>> from geom import Table
    >>> t = Table(24, 12)
    >>> t.centre, t.polygon.area
    ((12.0, 6.0), 288.0)
    """

    width: float  # x extent (long edge on a standard table)
    depth: float  # y extent

    @cached_property
    def polygon(self) -> Polygon:
        return Polygon([(0, 0), (self.width, 0), (self.width, self.depth), (0, self.depth)])

    @property
    def centre(self) -> Point:
        return (self.width / 2, self.depth / 2)


@dataclass(frozen=True)
class Base:
    """A base seen from above: an ellipse with full axes `long` ≥ `short` (equal for a disc).

    Polygon bases are not used by any official model; a disc or oval covers every card.

    Parameters
    ----------
    long, short : float
        The full axes in inches, both positive (given the other way round, they are swapped).
        `Base.from_mm` takes a unit card's millimetres: one figure for a disc, two for an oval.

    Returns
    -------
    Base
        The base; `a` and `b` are its semi-axes, `is_disc` says whether it is round.

    Raises
    ------
    TmgError
        An axis that is not positive.

    Examples
    --------
    >>> from geom import Base
    >>> round(Base.from_mm(32).long, 4), Base.from_mm(32).is_disc
    (1.2598, True)
    >>> oval = Base.from_mm((70, 105))
    >>> oval.mm(), round(oval.a, 3)
    ([105, 70], 2.067)
    """

    long: float
    short: float

    def __post_init__(self) -> None:
        if not (self.long > 0 and self.short > 0):
            raise TmgError(f"base axes must be positive, got {self.long} x {self.short}")
        if self.short > self.long:
            long, short = self.short, self.long
            object.__setattr__(self, "long", long)
            object.__setattr__(self, "short", short)

    @classmethod
    def from_mm(cls, mm: float | tuple[float, float] | list[float]) -> Base:
        if isinstance(mm, int | float):
            return cls(inches(mm), inches(mm))
        long, short = mm
        return cls(inches(max(long, short)), inches(min(long, short)))

    @property
    def is_disc(self) -> bool:
        return abs(self.long - self.short) < SAME_AXES

    @property
    def a(self) -> float:
        """Semi-axis along the base's own long axis."""
        return self.long / 2

    @property
    def b(self) -> float:
        return self.short / 2

    def mm(self) -> float | list[float]:
        def r(v: float) -> float:
            x = round(v * MM_PER_INCH, 3)
            return int(x) if x == int(x) else x

        return r(self.long) if self.is_disc else [r(self.long), r(self.short)]


@dataclass(frozen=True)
class Ellipse:
    """A placed base: centre, semi-axes and orientation (radians). Discs have a == b."""

    cx: float
    cy: float
    a: float
    b: float
    theta: float = 0.0

    @property
    def centre(self) -> Point:
        return (self.cx, self.cy)

    @property
    def is_disc(self) -> bool:
        return abs(self.a - self.b) < SAME_AXES

    def polygon(self, n: int = 64, outer: bool = False) -> Polygon:
        """Inscribed (default) or circumscribed n-gon; the two bracket the true base."""
        t = [2 * math.pi * k / n for k in range(n)]
        k = 1 / math.cos(math.pi / n) if outer else 1.0
        c, s = math.cos(self.theta), math.sin(self.theta)
        pts = []
        for ti in t:
            x, y = k * self.a * math.cos(ti), k * self.b * math.sin(ti)
            pts.append((self.cx + c * x - s * y, self.cy + s * x + c * y))
        return Polygon(pts)

    @cached_property
    def shape(self) -> Polygon:
        """A 128-gon for drawing and coarse prefilters (never for verdicts near the boundary)."""
        return self.polygon(128)


@dataclass(frozen=True)
class Model:
    """One model on the table. Unit stats that rules need per model are copied in, so that a
    rule can be asked about two models without the units at hand.

    Parameters
    ----------
    id : str
        The model's id within its unit.
    unit : str
        The id of its unit.
    owner : str
        Its player, "red" or "blue".
    at : tuple of float
        The centre of its base, in inches.
    base : Base
        Its base.
    size : int
        Its Size (§7.1.2).
    angle : float, optional
        Degrees from the x axis to the base's long axis (ovals).
    flying, large, burrowed, hidden : bool, optional
        The unit's keywords and statuses that rules need per model.
    tags : tuple of str, optional
        Its combat tags.

    Returns
    -------
    Model
        The model; `ref` names it as outputs do (``unit/id``), `rules_size` is the Size rules
        use (0 when BURROWED), `moved_to(at)` is the model elsewhere.

    Examples
    --------
    >>> from geom import Base, Model
    >>> m = Model.make("1", unit="a", owner="red", at=(4, 6), base=Base.from_mm(32), size=2,
    ...                burrowed=True)
    >>> m.ref, m.size, m.rules_size, m.moved_to((5, 6)).at
    ('a/1', 2, 0, (5.0, 6.0))
    """

    id: str
    unit: str
    owner: str
    at: Point
    base: Base
    size: int
    angle: float = 0.0  # degrees from the x axis to the base's long axis
    flying: bool = False
    large: bool = False
    burrowed: bool = False
    hidden: bool = False
    tags: tuple[str, ...] = ()

    @classmethod
    def make(cls, id: str, *, unit: str, owner: str, at: Point, base: Base, size: int,
             **kw: object) -> Model:
        return cls(id=id, unit=unit, owner=owner, at=(float(at[0]), float(at[1])), base=base,
                   size=size, **kw)  # type: ignore[arg-type]

    @property
    def ref(self) -> str:
        return f"{self.unit}/{self.id}"

    @cached_property
    def ellipse(self) -> Ellipse:
        return Ellipse(self.at[0], self.at[1], self.base.a, self.base.b, math.radians(self.angle))

    @property
    def ground(self) -> bool:
        return not self.flying

    @property
    def rules_size(self) -> int:
        """Keyword BURROWED: a burrowed model counts as Size 0 for every purpose."""
        return 0 if self.burrowed else self.size

    def moved_to(self, at: Point) -> Model:
        return replace(self, at=(float(at[0]), float(at[1])))


@dataclass(frozen=True)
class Speed:
    """Speed stat; a split Speed "4/7" uses the second value when the unit has one model.

    Parameters
    ----------
    normal : int
        The Speed in inches.
    alone : int, optional
        The second value of a split Speed: the Speed of a unit down to one model.

    Returns
    -------
    Speed
        The stat; `Speed.parse` reads ``6`` or ``"4/7"``, `for_models(n)` is the Speed of a unit
        of n models.

    Examples
    --------
    >>> from geom import Speed
    >>> s = Speed.parse("4/7")
    >>> s.for_models(3), s.for_models(1), str(s)
    (4, 7, '4/7')
    """

    normal: int
    alone: int | None = None

    @classmethod
    def parse(cls, value: int | str) -> Speed:
        if isinstance(value, bool):
            raise TmgError("speed must be an integer or 'a/b'")
        if isinstance(value, int):
            return cls(value)
        parts = str(value).split("/")
        if len(parts) == 1:
            return cls(int(parts[0]))
        if len(parts) == 2:
            return cls(int(parts[0]), int(parts[1]))
        raise TmgError(f"speed {value!r} is not 'a' or 'a/b'")

    def for_models(self, n_models: int) -> int:
        if n_models == 1 and self.alone is not None:
            return self.alone
        return self.normal

    def __str__(self) -> str:
        return f"{self.normal}/{self.alone}" if self.alone is not None else str(self.normal)


@dataclass(frozen=True)
class Unit:
    """A unit: its models and the unit-card stats and abilities rules ask of it (§4.4, §4.6).

    Parameters
    ----------
    id : str
        The unit's id.
    owner : str
        Its player, "red" or "blue".
    size : int
        Its Size.
    models : tuple of Model
        Its models on the table (each with ``unit=id``).
    base : Base
        The base of its models.
    tags : tuple of str, optional
        Its combat tags.
    statuses : tuple of str, optional
        Statuses such as "burrowed" and "hidden".
    flying, large : bool, optional
        FLYING and LARGE.
    speed : Speed, optional
        Its Speed (None: it cannot move).
    supply : float, optional
        Its supply.
    leading : str, optional
        The recorded leading model's id.
    type : str, optional
        The catalogue's unit type.
    name : str, optional
        The unit card's name.
    abilities : frozenset of str, optional
        Unit-card abilities that change geometry (`SQUADRON`, `LARGE`, …).
    reserve : bool, optional
        In reserve, off the table.
    coherent : bool, optional
        Whether it was in coherency at the end of its last moving action (§4.4).

    Returns
    -------
    Unit
        The unit; `model(id)` looks a model up (TmgError for an unknown id),
        `coherency_distance` and `gap_clearance` are the distances its rules use.

    Examples
    --------
    >>> from geom import Base, Model, Unit, Speed
    >>> base = Base.from_mm(32)
    >>> ms = tuple(Model.make(i, unit="a", owner="red", at=(x, 6), base=base, size=1)
    ...            for i, x in (("1", 4), ("2", 6)))
    >>> u = Unit("a", "red", 1, ms, base, speed=Speed(6), abilities=frozenset({"squadron"}))
    >>> u.coherency_distance, u.gap_clearance, u.current_speed(), u.leading_model.id
    (4.0, 1.0, 6, '1')
    """

    id: str
    owner: str
    size: int
    models: tuple[Model, ...]
    base: Base
    tags: tuple[str, ...] = ()
    flying: bool = False
    large: bool = False
    speed: Speed | None = None
    supply: float | None = None
    statuses: tuple[str, ...] = ()
    leading: str | None = None
    type: str | None = None
    name: str | None = None
    abilities: frozenset[str] = frozenset()
    reserve: bool = False  # in reserve, not on the table (its models' `at` mean nothing)
    # §4.4: recorded at the end of its last moving action (None: not recorded). True: it stays
    # in coherency through casualties until its next moving action (`geom.movement._coherency.standing`)
    coherent: bool | None = None

    def __post_init__(self) -> None:
        # `large` is kept as a field (scenario files and callers use it) and as an ability;
        # the two always agree.
        abilities = frozenset(self.abilities)
        if self.large:
            abilities |= {LARGE}
        object.__setattr__(self, "abilities", abilities)
        object.__setattr__(self, "large", LARGE in abilities)

    def has(self, ability: str) -> bool:
        return ability in self.abilities

    @property
    def coherency_distance(self) -> float:
        """§4.4: 3"; 4" for a unit with Squadron (편대)."""
        return SQUADRON_COHERENCY_DISTANCE if SQUADRON in self.abilities else COHERENCY_DISTANCE

    @property
    def structure(self) -> bool:
        """The STRUCTURE keyword, as an ability or a combat tag."""
        return STRUCTURE in self.abilities or STRUCTURE in self.tags

    @property
    def burrowed(self) -> bool:
        return "burrowed" in self.statuses

    @property
    def hidden(self) -> bool:
        return "hidden" in self.statuses

    @cached_property
    def by_id(self) -> tuple[Model, ...]:
        """The models in id order (natural order): what answers iterate in, so that no verdict
        depends on the order in which a file lists the models."""
        return tuple(sorted(self.models, key=lambda m: (natural_key(m.id), m.id)))

    @property
    def leading_model(self) -> Model:
        """The recorded leading model; with none recorded, the first model in id order (never
        the file's order). Rules that let the player pick the leader try `leader_candidates`."""
        if self.leading is not None:
            for m in self.models:
                if m.id == self.leading:
                    return m
        return self.by_id[0]

    @property
    def leader_candidates(self) -> tuple[Model, ...]:
        """Who may be the leading model: the recorded one, else every model, in id order."""
        if self.leading is not None:
            return (self.leading_model,)
        return self.by_id

    def model(self, model_id: str) -> Model:
        for m in self.models:
            if m.id == model_id:
                return m
        raise TmgError(f"unit {self.id!r} has no model {model_id!r}")

    @property
    def gap_clearance(self) -> float:
        """§4.6: Size ≤2 passes 1" gaps; Size ≥3 or LARGE needs 3"."""
        return 3.0 if (self.size >= 3 or self.large) else 1.0

    def current_speed(self) -> int | None:
        return None if self.speed is None else self.speed.for_models(len(self.models))

    def __iter__(self) -> Iterator[Model]:
        return iter(self.models)


@dataclass(frozen=True)
class TerrainPiece:
    """A terrain piece: footprint seen from above, Size and kind (§7.1, §9.3).

    Parameters
    ----------
    id : str
        The piece's id (outputs name it ``terrain/ID``).
    size : int
        Its Size.
    footprint : shapely.geometry.Polygon
        Its outline seen from above, in inches.
    kind : str, optional
        "solid" (default), "grass", "ramp", "token" or "force-field".
    standable : bool, optional
        It has a horizontal top models stand on.
    on : str, optional
        The id of the piece it stands on.
    openings : tuple of Polygon, optional
        Archways and breaches a model can move through (§4.6); they do not let sight
        through (§7.1).
    access_points : tuple of Polygon, optional
        The access points of a raised top (§8.5.3).
    label : str, optional
        Its name as a map gives it.

    Returns
    -------
    TerrainPiece
        The piece; `impassable` says whether it stops a ground leading model (§4.3).

    Examples
    --------
    >>> from shapely.geometry import box
    >>> from geom import TerrainPiece
    >>> wall = TerrainPiece("wall", 3, box(11, 0, 13, 8), label="Wall Set 2")
    >>> grass = TerrainPiece("g", 3, box(0, 0, 2, 2), kind="grass")
    >>> wall.impassable, grass.impassable, wall.title
    (True, False, 'Wall Set 2 (terrain/wall)')
    """

    id: str
    size: int
    footprint: Polygon
    kind: str = "solid"
    standable: bool = False
    on: str | None = None
    openings: tuple[Polygon, ...] = ()
    access_points: tuple[Polygon, ...] = ()
    label: str | None = None

    @property
    def ref(self) -> str:
        """How every output names the piece: the command-line reference `terrain/ID`."""
        return f"terrain/{self.id}"

    @property
    def title(self) -> str:
        """The piece as text and pictures name it: its label, then its reference
        (`Wall Set 2 (terrain/standard-1/12)`), or the reference alone."""
        return f"{self.label} ({self.ref})" if self.label else self.ref

    @property
    def grass(self) -> bool:
        return self.kind == "grass"

    @property
    def is_ramp(self) -> bool:
        return self.kind == "ramp"

    @property
    def is_token(self) -> bool:
        return self.kind in ("token", "force-field")

    @property
    def can_stand_on(self) -> bool:
        """A horizontal top models stand on; ramps are mid ground by definition (§8.5.3)."""
        return self.standable or self.is_ramp

    @property
    def impassable(self) -> bool:
        """Stops a ground leading model (§4.3): Size 2+ except grass."""
        return self.size >= 2 and not self.grass


@dataclass(frozen=True)
class Marker:
    """A mission marker: a 32 mm disc with no physical presence (§7.3.2, §8.9.1).

    Parameters
    ----------
    id : int
        The marker's number (outputs name it ``marker/ID``).
    at : tuple of float
        Its centre, in inches.
    colour : str, optional
        "red", "blue" or "neutral" (the deployment card's colour, `marker_colour`).

    Returns
    -------
    Marker
        The marker; its `base` is a 32 mm disc.

    Examples
    --------
    >>> from geom import Marker
    >>> mk = Marker(1, (12, 6), "red")
    >>> mk.ref, round(mk.base.long * 25.4, 3)
    ('marker/1', 32.0)
    """

    id: int
    at: Point
    colour: str = "neutral"

    @property
    def base(self) -> Base:
        return Base.from_mm(MARKER_DIAMETER_MM)

    @property
    def ref(self) -> str:
        return f"marker/{self.id}"

    @cached_property
    def ellipse(self) -> Ellipse:
        r = inches(MARKER_DIAMETER_MM) / 2
        return Ellipse(self.at[0], self.at[1], r, r)


def marker_colour(marker_id: int) -> str:
    """Markers 1 and 3 are red, 2 and 4 blue, 5 neutral (the deployment cards, §5.6)."""
    return {1: "red", 3: "red", 2: "blue", 4: "blue"}.get(marker_id, "neutral")


@dataclass(frozen=True)
class Deployment:
    """A deployment card: entry edges per player and their zones of influence (§5.6).

    Parameters
    ----------
    id : str
        The card's id.
    name : str
        The card's English name.
    table : Table
        The table it is laid out on.
    entry_edges : dict of str to tuple of LineString, optional
        Each player's entry edges.
    zones : dict of str to shapely geometry, optional
        Each player's zone of influence.
    markers : tuple of Marker, optional
        The card's mission markers.
    name_ko : str, optional
        The card's Korean name.

    Returns
    -------
    Deployment
        The card, as `Battlefield.deployment` holds it.

    Examples
    --------
    >>> from shapely.geometry import LineString, box
    >>> from geom import Deployment, Table
    >>> card = Deployment("edges", "Edges", Table(24, 12),
    ...                   entry_edges={"red": (LineString([(0, 0), (0, 12)]),)},
    ...                   zones={"red": box(0, 0, 6, 12)})
    >>> card.zones["red"].contains(box(1, 1, 2, 2)), len(card.entry_edges["red"])
    (True, 1)
    """

    id: str
    name: str
    table: Table
    entry_edges: dict[str, tuple[LineString, ...]] = field(default_factory=dict)
    zones: dict[str, BaseGeometry] = field(default_factory=dict)
    markers: tuple[Marker, ...] = ()
    name_ko: str | None = None


@dataclass(frozen=True)
class Battlefield:
    """One table with everything on it. Lookup helpers raise TmgError for unknown ids.

    Parameters
    ----------
    table : Table
        The table.
    terrain : tuple of TerrainPiece, optional
        The terrain pieces.
    units : tuple of Unit, optional
        The units on the table.
    markers : tuple of Marker, optional
        The mission markers.
    deployment : Deployment, optional
        The deployment card.
    name : str, optional
        A name for outputs.
    reserves : tuple of Unit, optional
        Units in reserve, off the table.

    Returns
    -------
    Battlefield
        The table, immutable: every query takes it, and a change (`after_action`,
        `replace_unit`) is a new battlefield.

    Examples
    --------
    >>> from shapely.geometry import box
    >>> from geom import Base, Battlefield, Model, Table, TerrainPiece, TmgError, Unit
    >>> base = Base.from_mm(32)
    >>> a = Model.make("1", unit="a", owner="red", at=(4, 6), base=base, size=1)
    >>> bf = Battlefield(Table(24, 12), (TerrainPiece("wall", 3, box(11, 0, 13, 8)),),
    ...                  (Unit("a", "red", 1, (a,), base),))
    >>> bf.unit("a").model("1").at, bf.piece("wall").impassable
    ((4.0, 6.0), True)
    >>> try:
    ...     bf.unit("b")
    ... except TmgError as e:
    ...     print(e)
    no unit 'b'
    """

    table: Table
    terrain: tuple[TerrainPiece, ...] = ()
    units: tuple[Unit, ...] = ()
    markers: tuple[Marker, ...] = ()
    deployment: Deployment | None = None
    name: str | None = None
    reserves: tuple[Unit, ...] = ()  # units in reserve: off the table, only a deploy brings them

    @cached_property
    def _pieces(self) -> dict[str, TerrainPiece]:
        return {p.id: p for p in self.terrain}

    @cached_property
    def _units(self) -> dict[str, Unit]:
        return {u.id: u for u in self.units}

    @cached_property
    def prepared(self) -> Prepared:
        """What the engine derives from this battlefield once and keeps (`geom.prepared`)."""
        return Prepared()

    def piece(self, piece_id: str) -> TerrainPiece:
        try:
            return self._pieces[piece_id]
        except KeyError:
            raise TmgError(f"no terrain piece {piece_id!r}") from None

    def has_piece(self, piece_id: str) -> bool:
        return piece_id in self._pieces

    def unit(self, unit_id: str) -> Unit:
        try:
            return self._units[unit_id]
        except KeyError:
            raise TmgError(f"no unit {unit_id!r}") from None

    def marker(self, marker_id: int) -> Marker:
        for m in self.markers:
            if m.id == marker_id:
                return m
        raise TmgError(f"no marker {marker_id}")

    def models(self) -> Iterable[Model]:
        for u in self.units:
            yield from u.models

    def replace_unit(self, unit: Unit) -> Battlefield:
        return replace(self, units=tuple(unit if u.id == unit.id else u for u in self.units))

    def arriving(self, unit_id: str) -> Battlefield:
        """The table with reserve unit `unit_id` brought on (where a deploy starts from; its
        models' positions are the deploy's to set); the table itself for a unit on it."""
        for u in self.reserves:
            if u.id == unit_id:
                return replace(self, units=(*self.units, replace(u, reserve=False)),
                               reserves=tuple(v for v in self.reserves if v.id != unit_id))
        return self

    def without_piece(self, piece_id: str) -> Battlefield:
        return replace(self, terrain=tuple(p for p in self.terrain if p.id != piece_id))

    def title_of(self, ref: str) -> str:
        """An obstacle's reference as text names it: `terrain/ID` by the piece's title, the
        edge of a raised top (`edge/ID`) as "the edge of" it; anything else as it is."""
        kind, _, pid = ref.partition("/")
        if kind in ("terrain", "edge") and self.has_piece(pid):
            title = self.piece(pid).title
            return title if kind == "terrain" else f"the edge of {title}"
        return ref

    def after_action(self, unit_id: str, positions: Mapping[str, Point], *,
                     destroyed: Iterable[str] = (), pieces_gone: Iterable[str] = ()
                     ) -> Battlefield:
        """The table as an action leaves it: the unit's models at `positions` (model id →
        centre; the others where they were), its `destroyed` models removed (the unit with
        them when none is left; a removed leading model leaves the unit without one), and
        `pieces_gone` (GRASS destroyed, pieces a LARGE unit removed) off the table.

        >>> base = Base.from_mm(25.4)
        >>> ms = tuple(Model.make(i, unit="u", owner="red", at=(x, 1), base=base, size=1)
        ...            for i, x in (("1", 1), ("2", 2)))
        >>> bf = Battlefield(Table(10, 10), units=(Unit("u", "red", 1, ms, base),))
        >>> after = bf.after_action("u", {"1": (5, 5)}, destroyed=["2"])
        >>> [(m.id, m.at) for m in after.unit("u").models]
        [('1', (5.0, 5.0))]
        """
        unit = self.unit(unit_id)
        for mid in (*positions, *destroyed):
            unit.model(mid)  # an unknown model id is an error, not silently ignored
        dead = set(destroyed)
        models = tuple(m.moved_to(positions[m.id]) if m.id in positions else m
                       for m in unit.models if m.id not in dead)
        gone = set(pieces_gone)
        units = tuple(u for u in self.units if u.id != unit_id or models)
        if models:
            moved = replace(unit, models=models,
                            leading=unit.leading if unit.leading not in dead else None)
            units = tuple(moved if u.id == unit_id else u for u in units)
        return replace(self, units=units,
                       terrain=tuple(p for p in self.terrain if p.id not in gone))
