"""A battlefield prepared for many sight questions (rulebook §7.1, §7.1.1, §7.1.2, §7.1.4): the
per-table work that every sight question shares, done once.

`SightContext(bf)` holds
- per piece: effective size, whether it can block, its outermost footprint (§7.1) and an STRtree
  over them; the standable tops and their tree (which top a base centre stands on);
- the obstacles for lines (`geom.lines._seams`: the footprints, and a join of every two blockable pieces
  that touch) prepared for exact segment tests (`geom.lines._line_obstacles`), with their STRtree;
- caches of answers that depend only on the table: each object's `Viewer` (effective size,
  elevation, the stack under it) and the pieces within 1" of it.

Everything a query needs beyond that is found through the trees, so the cost of a question does
not grow with pieces far from the models asked about. `cover_rows` applies the cover rules of
`geom.sight._cover` to many (pair, piece) rows at once; `corridor_rows` finds, for many pairs, the
obstacles that can stand between them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import shapely
from shapely import STRtree

from ..elevation import AIR, GROUND, HIGH, level_of_size
from ..lines import Frames, PreparedObstacles, close_seams, convex_parts, ranges
from ..model import Battlefield, Marker, Model
from . import _cover as cover
from ._cover import Viewer

if TYPE_CHECKING:
    pass


CHUNK = 3.0  # inches: the shorter side of a tree query box around a piece of centre segment
FEW_OBSTACLES = 64  # up to this many, every obstacle box is tested without the tree


def member(keys: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Which of the int64 keys `q` are in the sorted array `keys`."""
    if len(keys) == 0:
        return np.zeros(np.shape(q), dtype=bool)
    at = np.minimum(np.searchsorted(keys, q), len(keys) - 1)
    return np.asarray(keys[at] == q)


@dataclass(frozen=True)
class ViewerArrays:
    """Per-viewer arrays for vectorised rules (stacks as piece indices, −1 padded)."""

    eff: np.ndarray
    stack: np.ndarray  # (n, S)
    zone_high: np.ndarray
    zone_ground: np.ndarray
    zone_stack: np.ndarray  # (n, S')
    hidden: np.ndarray
    frames: Frames
    near: np.ndarray  # sorted keys i·K + k: viewer i within 1" of piece k

    def take(self, idx: np.ndarray, n_pieces: int) -> ViewerArrays:
        """The viewers `idx` (in that order), renumbered 0…len(idx)−1."""
        new = np.full(len(self.eff), -1, dtype=np.int64)
        new[idx] = np.arange(len(idx))
        i, k = self.near // max(n_pieces, 1), self.near % max(n_pieces, 1)
        keep = new[i] >= 0
        near = np.sort(new[i[keep]] * n_pieces + k[keep])
        return ViewerArrays(self.eff[idx], self.stack[idx], self.zone_high[idx],
                            self.zone_ground[idx], self.zone_stack[idx], self.hidden[idx],
                            self.frames.take(idx), near)


class SightContext:
    """A battlefield prepared for many sight questions. Holds no state beyond caches of
    answers that depend only on the battlefield it was built from.

    Parameters
    ----------
    bf : Battlefield
        The table. `SightContext.of(bf)` gives the one kept with the battlefield.

    Returns
    -------
    SightContext
        The prepared table, to pass as `ctx` to `line_of_sight` and `unit_sight` (and to
        `geom.sight.sight_matrix(ctx, As, Bs)`, every pair of two lists at once: a
        `SightMatrix` with `visible`, `code`, `witness`, `dist` and `verdict(i, j)`).

    Examples
    --------
    >>> from shapely.geometry import box
    >>> from geom import Base, Battlefield, Model, SightContext, Table, TerrainPiece, line_of_sight
    >>> from geom.sight import sight_matrix
    >>> base = Base.from_mm(32)
    >>> a = [Model.make(i, unit="a", owner="red", at=(4, y), base=base, size=1)
    ...      for i, y in (("1", 4), ("2", 10))]
    >>> b = [Model.make(i, unit="b", owner="blue", at=(20, y), base=base, size=1)
    ...      for i, y in (("1", 4), ("2", 10))]
    >>> bf = Battlefield(Table(24, 12), (TerrainPiece("wall", 3, box(11, 0, 13, 8)),))
    >>> ctx = SightContext.of(bf)
    >>> sight_matrix(ctx, a, b).visible.tolist()
    [[False, False], [False, True]]
    >>> v = line_of_sight(bf, a[0], b[1], ctx)
    >>> v.ok, v.rule, v.details["blocking"]
    (False, '7.1.1 full cover', ['wall'])
    """

    def __init__(self, bf: Battlefield) -> None:
        self.bf = bf
        self.pieces = bf.terrain
        self.piece_ids = [p.id for p in self.pieces]
        self.piece_index = {pid: k for k, pid in enumerate(self.piece_ids)}
        k = len(self.pieces)
        self.piece_eff = np.array([float(cover.piece_effective_size(bf, p)) for p in self.pieces]
                                  ).reshape(k)
        self.blockable = np.array([cover.can_block(p) for p in self.pieces], dtype=bool
                                  ).reshape(k) & (self.piece_eff > 0)
        fps = np.empty(k, dtype=object)
        fps[:] = [cover.outer_footprint(p.footprint) for p in self.pieces]
        self.footprints = fps
        self.footprint_tree = STRtree(fps) if k else None
        self._parts: dict[int, list[np.ndarray]] = {}
        seamed = close_seams(list(fps), joinable=self.blockable)
        self.obstacles = PreparedObstacles.build(seamed.polys)
        self.members = seamed.members[self.obstacles.index].reshape(-1, 2)
        self.stand = np.array([i for i, p in enumerate(self.pieces) if p.can_stand_on],
                              dtype=np.int64)
        tops = np.empty(len(self.stand), dtype=object)
        tops[:] = [self.pieces[i].footprint for i in self.stand.tolist()]
        self.stand_tree = STRtree(tops) if len(tops) else None
        self._stacks = [self._stack(i) for i in range(k)]
        self._slot: dict[Model | Marker, int] = {}
        self.cached_viewers: list[Viewer] = []
        self._near: list[np.ndarray] = []
        self._near_sets: list[set[int]] = []
        self._under: list[set[int]] = []
        self._zone: list[tuple[int, ...]] = []
        self._frames: list[Frames | None] = []
        self.zone_high: list[bool] = []
        self.zone_ground: list[bool] = []

    @classmethod
    def of(cls, bf: Battlefield) -> SightContext:
        """The context of `bf`, built once and kept with it (every part of one command that
        asks about sight shares it)."""
        kept = bf.prepared
        if kept.sight is None:
            kept.sight = cls(bf)
        return kept.sight

    def footprint_parts(self, k: int) -> list[np.ndarray]:
        """Convex pieces of footprint k, worked out the first time an oval needs them."""
        if k not in self._parts:
            self._parts[k] = convex_parts(self.footprints[k])
        return self._parts[k]

    def _stack(self, k: int) -> tuple[int, ...]:
        out: list[int] = []
        while k >= 0 and k not in out:
            out.append(k)
            on = self.pieces[k].on
            k = self.piece_index[on] if on is not None else -1
        return tuple(out)

    # ------------------------------------------------------------------ per object

    def _tops(self, centres: np.ndarray) -> np.ndarray:
        """The standable top under each point (−1: the mat): of the tops containing it, the one
        of greatest effective size, the first in table order among equals (as
        `geom.elevation.top_at`)."""
        out = np.full(len(centres), -1, dtype=np.int64)
        if self.stand_tree is None or not len(centres):
            return out
        pi, ti = self.stand_tree.query(shapely.points(centres), predicate="intersects")
        if len(pi):
            k = self.stand[ti]
            order = np.lexsort((k, -self.piece_eff[k], pi))
            pi, k = pi[order], k[order]
            first = np.ones(len(pi), dtype=bool)
            first[1:] = pi[1:] != pi[:-1]
            out[pi[first]] = k[first]
        return out

    def slots(self, objs: Sequence[Model | Marker]) -> list[int]:
        """Each object's slot in the caches, working out new objects' viewers and the pieces
        within 1" of them in bulk."""
        new = list(dict.fromkeys(o for o in objs if o not in self._slot))
        if new:
            ms = [cover.as_model(o) for o in new]
            tops = self._tops(np.array([m.at for m in ms], dtype=float).reshape(-1, 2))
            base = len(self.cached_viewers)
            for o, m, t in zip(new, ms, tops.tolist(), strict=True):
                top = -1 if m.flying else t
                foot = self._level(t)
                eff = float("inf") if m.flying else m.rules_size + (
                    self.piece_eff[top] if top >= 0 else 0.0)
                self._slot[o] = len(self.cached_viewers)
                self.cached_viewers.append(Viewer(
                    o.ref, m.ellipse, float(eff), AIR if m.flying else foot, self._ids(top),
                    bool(m.hidden) if isinstance(o, Model) else False, m.flying,
                    o if isinstance(o, Model) else None, foot, self._ids(t)))
            self._near.extend(self._near_pieces(self.cached_viewers[base:]))
            self._near_sets.extend(set(n.tolist()) for n in self._near[base:])
            for v in self.cached_viewers[base:]:
                self._under.append({self.piece_index[p] for p in v.stack})
                self._zone.append(tuple(self.piece_index[p] for p in v.zone_stack))
                self.zone_high.append(v.zone_level == HIGH)
                self.zone_ground.append(v.zone_level == GROUND)
                self._frames.append(None)
        return [self._slot[o] for o in objs]

    def near_set(self, slot: int) -> set[int]:
        """Pieces within 1" of the object in `slot`."""
        return self._near_sets[slot]

    def under(self, slot: int) -> set[int]:
        """The top the object in `slot` stands on and the pieces under it."""
        return self._under[slot]

    def zone_stack(self, slot: int) -> tuple[int, ...]:
        """The pieces whose foot is the dead zone of the object in `slot` (if on high ground)."""
        return self._zone[slot]

    def frames(self, slot: int) -> Frames:
        """The base of the object in `slot` as a one-row `Frames`."""
        f = self._frames[slot]
        if f is None:
            f = self._frames[slot] = Frames.of([self.cached_viewers[slot].ellipse])
        return f

    def viewers(self, objs: Sequence[Model | Marker]) -> list[Viewer]:
        """Each object as the sight rules see it (cached per object)."""
        return [self.cached_viewers[s] for s in self.slots(objs)]

    def viewer(self, obj: Model | Marker) -> Viewer:
        return self.viewers([obj])[0]

    def _level(self, top: int) -> str:
        return level_of_size(self.piece_eff[top]) if top >= 0 else GROUND

    def _ids(self, top: int) -> tuple[str, ...]:
        return tuple(self.piece_ids[k] for k in self._stacks[top]) if top >= 0 else ()

    def _near_pieces(self, vs: Sequence[Viewer]) -> list[np.ndarray]:
        """For each viewer, the sorted indices of the pieces within 1" of its base."""
        if self.footprint_tree is None:
            return [np.zeros(0, dtype=np.int64) for _ in vs]
        ii, kk = cover.near_pieces([v.ellipse for v in vs], self.footprints,
                                   self.footprint_tree, self.footprint_parts)
        order = np.lexsort((kk, ii))
        ii, kk = ii[order], kk[order]
        cut = np.searchsorted(ii, np.arange(len(vs) + 1))
        return [kk[cut[r]:cut[r + 1]] for r in range(len(vs))]

    def prepare(self, objs: Sequence[Model | Marker]) -> tuple[list[Viewer], ViewerArrays]:
        """The objects' viewers and their arrays for the vectorised rules."""
        slots = self.slots(objs)
        vs = [self.cached_viewers[s] for s in slots]
        n, k = len(vs), len(self.pieces)

        def pad(stacks: list[tuple[str, ...]]) -> np.ndarray:
            width = max((len(s) for s in stacks), default=0) or 1
            out = np.full((n, width), -1, dtype=np.int64)
            for r, st in enumerate(stacks):
                out[r, :len(st)] = [self.piece_index[p] for p in st]
            return out

        near = [self._near[s] for s in slots]
        keys = np.concatenate([r * k + nk for r, nk in enumerate(near)]) if n else \
            np.zeros(0, dtype=np.int64)
        return vs, ViewerArrays(
            np.array([v.effective for v in vs], dtype=float).reshape(n),
            pad([v.stack for v in vs]),
            np.array([v.zone_level == HIGH for v in vs], dtype=bool).reshape(n),
            np.array([v.zone_level == GROUND for v in vs], dtype=bool).reshape(n),
            pad([v.zone_stack for v in vs]),
            np.array([v.hidden for v in vs], dtype=bool).reshape(n),
            Frames.of([v.ellipse for v in vs]), keys.astype(np.int64))

    # ------------------------------------------------------------------ questions

    # ------------------------------------------------------------------ pairs × pieces

    def cover_rows(self, A: ViewerArrays, B: ViewerArrays, i: np.ndarray, j: np.ndarray,
                   k: np.ndarray, cq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(full, direct) for rows (viewer i of A, viewer j of B, piece k); `cq` per row."""
        K = len(self.pieces)
        ok = self.blockable[k] & ~(A.stack[i] == k[:, None]).any(axis=1) \
            & ~(B.stack[j] == k[:, None]).any(axis=1)
        return cover.cover_rows(self.piece_eff[k], ok, A.eff[i], B.eff[j],
                                member(A.near, i * K + k), member(B.near, j * K + k), cq)

    def obstacle_blocks(self, A: ViewerArrays, B: ViewerArrays, i: np.ndarray, j: np.ndarray,
                        o: np.ndarray, cq: np.ndarray) -> np.ndarray:
        """Rows (i, j, obstacle o): does the obstacle block for the pair — every piece it
        stands for blocks (a seam join stands only where both its pieces block)?"""
        out = np.ones(len(o), dtype=bool)
        for col in range(self.members.shape[1]):
            k = self.members[o, col]
            valid = k >= 0
            full, direct = self.cover_rows(A, B, i, j, np.where(valid, k, 0), cq)
            out &= ~valid | full | direct
        return out

    def corridor_rows(self, ca: np.ndarray, cb: np.ndarray, r: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
        """(pair, obstacle) rows, sorted: obstacles whose box meets the rectangle of
        half-width r[p] around the centre segment ca[p]–cb[p], extended by r[p] at both ends (it
        holds the hull of the two bases). A superset of the obstacles that can stand between
        them. The tree is asked with the boxes of pieces of the segment spanning at most `CHUNK`
        across their shorter side, so a long diagonal line does not collect every piece in its
        bounding box."""
        obs = self.obstacles
        if obs.tree is None or not len(ca):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        v = cb - ca
        cd = np.hypot(v[:, 0], v[:, 1])
        if len(obs) <= FEW_OBSTACLES:  # a small table: every box, no tree (a bounded cost)
            p, o = self._box_rows(ca, cb, r)
            return self._rectangle_test(ca, cb, r, v, cd, p, o)
        pieces = np.maximum(1, np.ceil(np.minimum(np.abs(v[:, 0]), np.abs(v[:, 1])) / CHUNK)
                            ).astype(np.int64)
        pair = np.repeat(np.arange(len(ca)), pieces)
        step = (ranges(np.zeros(len(ca), dtype=np.int64), pieces) / pieces[pair])[:, None]
        p0 = ca[pair] + step * v[pair]
        p1 = p0 + v[pair] / pieces[pair][:, None]
        lo = np.minimum(p0, p1) - r[pair][:, None]
        hi = np.maximum(p0, p1) + r[pair][:, None]
        q, o = obs.tree.query(shapely.box(lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1]))
        if not len(q):
            return q, o
        key = np.unique(pair[q] * len(obs) + o)
        return self._rectangle_test(ca, cb, r, v, cd, key // len(obs), key % len(obs))

    def _box_rows(self, ca: np.ndarray, cb: np.ndarray, r: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
        """(pair, obstacle) rows whose boxes meet the box of the rectangle, every obstacle tried
        (in blocks of pairs, so the dense test stays small)."""
        bx = self.obstacles.boxes
        lo = np.minimum(ca, cb) - r[:, None]
        hi = np.maximum(ca, cb) + r[:, None]
        ps, os_ = [], []
        step = max(1, (1 << 16) // max(1, len(bx)))
        for s0 in range(0, len(ca), step):
            sl = slice(s0, s0 + step)
            meet = ((bx[None, :, 0] <= hi[sl, None, 0]) & (bx[None, :, 2] >= lo[sl, None, 0])
                    & (bx[None, :, 1] <= hi[sl, None, 1]) & (bx[None, :, 3] >= lo[sl, None, 1]))
            p, o = np.nonzero(meet)
            ps.append(p + s0)
            os_.append(o)
        return np.concatenate(ps).astype(np.int64), np.concatenate(os_).astype(np.int64)

    def _rectangle_test(self, ca: np.ndarray, cb: np.ndarray, r: np.ndarray, v: np.ndarray,
                        cd: np.ndarray, p: np.ndarray, o: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray]:
        """Keep the rows whose obstacle box meets the pair's rectangle on the rectangle's own
        axes (the box's axes were tested already)."""
        obs = self.obstacles
        u = v / np.where(cd > 0, cd, 1.0)[:, None]
        u[cd == 0] = (1.0, 0.0)
        bx = obs.boxes[o]
        hx, hy = (bx[:, 2] - bx[:, 0]) / 2, (bx[:, 3] - bx[:, 1]) / 2
        dx = (bx[:, 0] + bx[:, 2]) / 2 - (ca[p, 0] + cb[p, 0]) / 2
        dy = (bx[:, 1] + bx[:, 3]) / 2 - (ca[p, 1] + cb[p, 1]) / 2
        ux, uy = u[p, 0], u[p, 1]
        ext_u = hx * np.abs(ux) + hy * np.abs(uy)
        ext_n = hx * np.abs(uy) + hy * np.abs(ux)
        keep = (np.abs(dx * ux + dy * uy) <= cd[p] / 2 + r[p] + ext_u) \
            & (np.abs(dy * ux - dx * uy) <= r[p] + ext_n)
        return p[keep], o[keep]
