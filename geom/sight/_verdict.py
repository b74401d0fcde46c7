"""The verdict of one sight question, with its rule, reason and witness (rulebook §7.1, §7.1.1,
§7.1.2, §7.1.4, keyword HIDDEN).

Rules named: "7.1 line of sight" (visible), "7.1.1 close quarters" (visible because close
quarters lifted direct cover or a dead zone), "7.1.1 full cover" / "direct cover" / "full and
direct cover" (blocked), "7.1.1 elevation dead zone", "HIDDEN".

A blocked verdict names an irreducible set of pieces that together stop every line (dropping any
one opens a line): the strongest piece that alone stops every line when there is one, else the set
left after dropping pieces one at a time — direct cover and lower pieces first — each drop
re-checked by the exact search. That costs several searches, so a verdict's `rule`, `reason` and
`details` are worked out the first time they are read (`LazyVerdict`); `ok` and `witness` are
known at once. A visible verdict's `details["blocking"]` lists the pieces that would block for
the pair but that the witness passes beside.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import shapely

from ..lines import corridor, job_parts, search_jobs, separated
from ..tolerance import BASES_TOUCH
from ..verdict import Verdict
from . import _cover as cover
from ._matrix import BLOCKED, DEAD_ZONE, HIDDEN, VISIBLE, SightMatrix
from ._table import SightContext

RULE_LOS = "7.1 line of sight"
RULE_HIDDEN = "HIDDEN"
RULE_DEAD_ZONE = "7.1.1 elevation dead zone"
RULE_CLOSE_QUARTERS = "7.1.1 close quarters"

Explained = tuple[str, str, dict[str, Any]]


class LazyVerdict(Verdict):
    """A `Verdict` whose rule, reason and details are built when first read."""

    _explain: Callable[[], Explained]
    _done: Explained | None

    def __init__(self, ok: bool, witness: Any, explain: Callable[[], Explained]) -> None:
        object.__setattr__(self, "ok", ok)
        object.__setattr__(self, "witness", witness)
        object.__setattr__(self, "_explain", explain)
        object.__setattr__(self, "_done", None)

    def _parts(self) -> Explained:
        if self._done is None:
            object.__setattr__(self, "_done", self._explain())
        assert self._done is not None
        return self._done

    @property  # type: ignore[override]
    def rule(self) -> str:
        return self._parts()[0]

    @property  # type: ignore[override]
    def reason(self) -> str:
        return self._parts()[1]

    @property  # type: ignore[override]
    def details(self) -> dict[str, Any]:
        return self._parts()[2]


def _title(ctx: SightContext, pid: str) -> str:
    """A piece as every reason names it: its label and reference (`TerrainPiece.title`)."""
    return ctx.pieces[ctx.piece_index[pid]].title


def _num(x: float) -> str:
    if math.isinf(x):
        return "above all terrain (flying)"
    return f"{x:g}"


def blocking_pieces(m: SightMatrix, i: int, j: int) -> list[str]:
    """Ids of the pieces that block for the pair and stand between the two bases (within
    reach of their hull)."""
    ctx = m.ctx
    rows = corridor(ctx.obstacles, m.a[i].ellipse, m.b[j].ellipse, m.blocking_rows(i, j))
    ks = sorted({int(k) for k in ctx.members[rows].ravel() if k >= 0})
    return [ctx.piece_ids[k] for k in ks]


def _blocked_by(m: SightMatrix, i: int, j: int, pieces: set[int]) -> bool:
    ctx = m.ctx
    rows = m.blocking_rows(i, j)
    mem = ctx.members[rows]
    rows = rows[np.all((mem < 0) | np.isin(mem, list(pieces)), axis=1)]
    res = search_jobs(m.A.frames.take(np.array([i])), m.B.frames.take(np.array([j])),
                      ctx.obstacles, np.array([0, len(rows)]), rows)
    return not bool(res.clear[0])


def minimal_pieces(m: SightMatrix, i: int, j: int) -> list[str]:
    """An irreducible set of pieces that together stop every line (module docstring)."""
    ctx = m.ctx
    keep = [ctx.piece_index[p] for p in blocking_pieces(m, i, j)]
    full, _ = m.kinds(i, j)

    def strength(k: int) -> tuple[bool, float]:
        return bool(full[k]), float(ctx.piece_eff[k])

    rows = m.blocking_rows(i, j)
    single = rows[(ctx.members[rows, 1] < 0) & np.isin(ctx.members[rows, 0], keep)]
    if len(single):
        n = len(single)
        fa, fb = m.A.frames.take(np.full(n, i)), m.B.frames.take(np.full(n, j))
        jobs = job_parts(ctx.obstacles, np.arange(n + 1), single)
        alone = single[separated(fa, fb, np.arange(n), jobs, ctx.obstacles)] \
            if float(m.dist[i, j]) > BASES_TOUCH else single[:0]
        if not len(alone):  # no single convex part does it: ask the full search, piece by piece
            res = search_jobs(fa, fb, ctx.obstacles, np.arange(n + 1), single)
            alone = single[~res.clear]
        if len(alone):
            return [ctx.piece_ids[max((int(ctx.members[r, 0]) for r in alone), key=strength)]]
    for k in sorted(keep, key=strength):  # drop direct cover first, then the lower pieces
        trial = [x for x in keep if x != k]
        if _blocked_by(m, i, j, set(trial)):
            keep = trial
    return [ctx.piece_ids[k] for k in sorted(keep)]


def _why(m: SightMatrix, i: int, j: int, k: int, full: np.ndarray) -> str:
    """Why piece k blocks for the pair (a sentence fragment)."""
    ctx, va, vb = m.ctx, m.a[i], m.b[j]
    pid, e = ctx.pieces[k].title, _num(ctx.piece_eff[k])
    if full[k]:
        return (f"{pid} gives full cover (effective size {e} ≥ {_num(va.effective)} of "
                f"{va.ref} and ≥ {_num(vb.effective)} of {vb.ref})")
    near_a, near_b = _near(m, i, j, k)
    who = [v for v, n in ((va, near_a), (vb, near_b)) if n and ctx.piece_eff[k] >= v.effective]
    names = " and ".join(f"{v.ref} is within 1\" of it and its effective size {e} ≥ "
                         f"{_num(v.effective)}" for v in who)
    return f"{pid} gives direct cover ({names})"


def _near(m: SightMatrix, i: int, j: int, k: int) -> tuple[bool, bool]:
    K = len(m.ctx.pieces)
    return (bool(np.isin(i * K + k, m.A.near)), bool(np.isin(j * K + k, m.B.near)))


def _why_not(m: SightMatrix, i: int, j: int, k: int) -> str:
    """Why piece k, crossed by a line, does not block for the pair."""
    ctx, va, vb = m.ctx, m.a[i], m.b[j]
    p, name = ctx.pieces[k], ctx.pieces[k].title
    for v in (va, vb):
        if p.id in v.stack:
            return (f"{name}, the top {v.ref} stands on (or under it), which never blocks its "
                    "sight (§7.1.2)")
    if not ctx.blockable[k]:
        return f"{name} is Size {p.size} and does not block"
    e = _num(ctx.piece_eff[k])
    near_a, near_b = _near(m, i, j, k)
    if near_a and near_b and m.cq[i, j]:
        return (f"{name}: close quarters — both models are within 1\" of it and within 3\" "
                "of each other, so it gives no direct cover")
    taller = [v for v in (va, vb) if v.effective > ctx.piece_eff[k]]
    tall = " and ".join(f"{v.ref} (effective size {_num(v.effective)})" for v in taller)
    nears = [v for v, n in ((va, near_a), (vb, near_b)) if n]
    if nears:
        near = " and ".join(v.ref for v in nears)
        return (f"{name} (effective size {e}): no full cover, as {tall} is taller; {near} "
                "within 1\" of it but taller than it, so no direct cover")
    return (f"{name} (effective size {e}): no full cover, as {tall} is taller; no direct "
            "cover, as neither model is within 1\" of it")


def _crossed(m: SightMatrix, seg: tuple[tuple[float, float], tuple[float, float]]) -> list[int]:
    """Pieces whose interior (shrunk by the tolerance) the segment enters."""
    ctx = m.ctx
    if ctx.obstacles.tree is None or seg[0] == seg[1]:
        return []
    rows = ctx.obstacles.tree.query(shapely.linestrings([seg[0], seg[1]]),
                                    predicate="intersects")
    mem = ctx.members[rows]
    return sorted(int(k) for k in mem[mem[:, 1] < 0, 0])


def _dead_zone(m: SightMatrix, i: int, j: int) -> Explained:
    va, vb = m.a[i], m.b[j]
    d = float(m.dist[i, j])
    high, low = (va, vb) if va.zone_level == cover.HIGH else (vb, va)
    close = bool(m.cq[i, j])
    pid = cover.dead_zone_piece(m.ctx.bf, high, low, close)
    top = high.zone_stack[0] if high.zone_stack else pid
    ctx = m.ctx
    name = _title(ctx, pid) if pid else "a piece"
    on = name if top == pid or top is None else f"{_title(ctx, top)} (stacked on {name})"
    why = (f"{high.ref} is not within 1\" of {name}" if close
           else f"{d:.2f}\" apart, more than 3\"")
    flyers = [v.ref for v in (high, low) if v.flying]
    foot = (f" ({' and '.join(flyers)} flying: for the dead zone a flying model stands where "
            "its stand's foot stands, §7.1.4)") if flyers else ""
    return (RULE_DEAD_ZONE,
            f"{high.ref} is on high ground on {on} and {low.ref} is at ground level within 1\" "
            f"of the foot of {name}{foot}; not close quarters ({why}): neither sees the other",
            {"blocking": [pid] if pid else [], "distance": d})


def _hidden(m: SightMatrix, i: int, j: int) -> Explained:
    d = float(m.dist[i, j])
    return (RULE_HIDDEN, f"{m.b[j].ref} is HIDDEN and {d:.2f}\" from {m.a[i].ref}, more than "
            "4\": it is not visible whatever the sight", {"blocking": [], "distance": d})


def _blocked(m: SightMatrix, i: int, j: int, minimal: bool) -> Explained:
    va, vb = m.a[i], m.b[j]
    ctx = m.ctx
    ids = minimal_pieces(m, i, j) if minimal else blocking_pieces(m, i, j)
    full, direct = m.kinds(i, j)
    ks = [ctx.piece_index[p] for p in ids]
    kinds = {"full" if full[k] else "direct" for k in ks if full[k] or direct[k]}
    rule = "7.1.1 " + " and ".join(x for x in ("full", "direct") if x in kinds) + " cover"
    whys = "; ".join(_why(m, i, j, k, full) for k in ks)
    together = "together stop" if len(ids) > 1 else "stops"
    reason = (f"{va.ref} does not see {vb.ref}: every line from base to base crosses a piece "
              f"that blocks for this pair — {whys}; {'these' if len(ids) > 1 else 'it'} "
              f"{together} every line.")
    return rule, reason, {"blocking": ids, "distance": float(m.dist[i, j])}


def _visible(m: SightMatrix, i: int, j: int, seg: tuple[tuple[float, float], tuple[float, float]]
             ) -> Explained:
    va, vb, ctx = m.a[i], m.b[j], m.ctx
    crossed = _crossed(m, seg)
    notes = [_why_not(m, i, j, k) for k in crossed]
    rule = RULE_LOS
    under = set(va.stack) | set(vb.stack)
    if m.cq[i, j] and any(all(_near(m, i, j, k)) and ctx.blockable[k]
                          and ctx.piece_ids[k] not in under for k in crossed):
        rule = RULE_CLOSE_QUARTERS
    lifted = None
    if m.cq[i, j]:
        for high, low in ((va, vb), (vb, va)):
            for pid, _ in cover.dead_zone_pieces(ctx.bf, high, low):
                lifted = lifted or pid
    if lifted:
        rule = RULE_CLOSE_QUARTERS
        notes.append(f"close quarters: the models are within 3\" of each other, so the "
                     f"elevation dead zone of {_title(ctx, lifted)} does not apply")
    blocking = blocking_pieces(m, i, j)
    line = f"({seg[0][0]:.3f}, {seg[0][1]:.3f})–({seg[1][0]:.3f}, {seg[1][1]:.3f})"
    if notes:
        reason = (f"{va.ref} sees {vb.ref}: the line {line} crosses no piece that blocks for "
                  f"this pair; " + ("it crosses " if crossed else "") + "; ".join(notes) + ".")
    else:
        reason = f"{va.ref} sees {vb.ref}: the line {line} crosses no terrain."
    if blocking:
        reason += (" It passes beside " + ", ".join(_title(ctx, pid) for pid in blocking)
                   + ", which would block for this pair.")
    return rule, reason, {"blocking": blocking, "distance": float(m.dist[i, j])}


Segment = tuple[tuple[float, float], tuple[float, float]]


def explain(m: SightMatrix, i: int, j: int, minimal: bool = True, seg: Segment | None = None
            ) -> Explained:
    """(rule, reason, details) of pair (i, j); `seg`: the witness to explain (default the
    matrix's own)."""
    code = int(m.code[i, j])
    if code == HIDDEN:
        return _hidden(m, i, j)
    if code == DEAD_ZONE:
        return _dead_zone(m, i, j)
    if code == BLOCKED:
        return _blocked(m, i, j, minimal)
    if seg is None:
        w = m.witness[i, j]
        seg = ((float(w[0, 0]), float(w[0, 1])), (float(w[1, 0]), float(w[1, 1])))
    return _visible(m, i, j, seg)


def pair_verdict(m: SightMatrix, i: int, j: int, minimal: bool = True) -> Verdict:
    """The verdict for pair (i, j). `minimal`: for a blocked pair, name an irreducible set of
    pieces (module docstring); otherwise every blocking piece between the bases."""
    seg = None
    if m.code[i, j] == VISIBLE:
        w = m.witness[i, j]
        seg = ((float(w[0, 0]), float(w[0, 1])), (float(w[1, 0]), float(w[1, 1])))
    return LazyVerdict(seg is not None, seg, lambda: explain(m, i, j, minimal, seg))
