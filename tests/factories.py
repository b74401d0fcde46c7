"""Small builders shared by the tests."""

from geom.model import Battlefield, Model, Table, Unit


def battlefield_of(pieces, models, markers=(), table=None) -> Battlefield:
    """A battlefield holding the pieces, the markers and the models grouped into their units
    (each unit takes owner, Size, base and flying from its first model)."""
    units: dict[str, list[Model]] = {}
    for m in models:
        units.setdefault(m.unit, []).append(m)
    us = tuple(Unit(uid, ms[0].owner, ms[0].size, tuple(ms), ms[0].base, flying=ms[0].flying)
               for uid, ms in units.items())
    return Battlefield(table or Table(54, 36), tuple(pieces), us, tuple(markers))
