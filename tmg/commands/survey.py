"""`tmg survey LAYOUT_OR_FILE [--deployment CARD | --all] [--step IN] [--workers N | --scheduler
ADDR] -o DIR`: whole-table heatmaps and numbers for a layout and a deployment card — exposure,
safe area, mission markers, charge threat (rulebook §5.6, §7.1–§7.1.4, §8.7.7, §8.9.1; the
measures are `survey`'s; docs/survey.md says what each means).

The engine cuts the work into coarse tasks and takes any executor; this command runs them on
Dask distributed: a `LocalCluster` of worker processes on this machine by default (or this
process alone for a tiny job, or with `--workers 0`), or an existing cluster with `--scheduler
ADDRESS` (started with `dask scheduler` and `dask worker ADDRESS`). Results do not depend on
the number of workers. A progress bar goes to stderr when stderr is a terminal (`--progress`
forces it). Everything written into DIR is written atomically.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import maps
import scenario
from geom.errors import TmgError
from geom.model import LARGE, Base, Speed
from scenario import catalogue
from scenario.units import catalogue_abilities
from survey import (
    CHARGE_THREAT,
    EXPOSURE,
    MARKERS,
    MEASURES,
    SAFE_AREA,
    Charger,
    Probe,
    SurveyJob,
    SurveySpec,
    estimated_pairs,
)
from survey import run as run_survey

from . import _survey_files, about
from ._common import distance_arg, finite_arg

TINY_PAIRS = 40_000  # below this many sight pairs a job runs in this process (no cluster start-up)
MIN_WIDTH, MAX_WIDTH = 400, 4000


MEASURE_NAMES = ", ".join(MEASURES)


def _measure(text: str) -> str:
    """argparse type: a measure name of `survey.MEASURES`."""
    if text not in MEASURES:
        raise argparse.ArgumentTypeError(f"unknown measure {text!r} (choose from "
                                         f"{', '.join(MEASURES)})")
    return text


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("survey", help=about("survey"))
    p.add_argument("file", nargs="?", metavar="LAYOUT_OR_FILE",
                   help="official layout (standard-1 ...) or scenario file; with --all it may be "
                        "left out (every official layout)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--deployment", metavar="CARD", help="the deployment card (zones, markers)")
    which.add_argument("--all", action="store_true",
                       help="every deployment card of the table's size that has geometry (and "
                            "without LAYOUT_OR_FILE every official layout): writes a report")
    p.add_argument("--step", type=distance_arg, default=1.0, metavar="IN",
                   help='grid step in inches (default 1)')
    p.add_argument("--zone-step", type=distance_arg, default=2.0, metavar="IN",
                   help='spacing of the samples in each zone of influence (default 2)')
    p.add_argument("--base-mm", type=distance_arg, default=32.0, metavar="MM",
                   help="the probe model's base diameter in mm (default 32)")
    p.add_argument("--size", type=int, default=2, metavar="N", help="the probe's Size (default 2)")
    p.add_argument("--hidden", action="store_true", help="the probe is HIDDEN (seen within 4\")")
    p.add_argument("--measure", action="extend", nargs="+", type=_measure, metavar="M",
                   help=f"one or more of {MEASURE_NAMES} (default: all that apply)")
    p.add_argument("--unit", metavar="TYPE",
                   help="catalogue unit type whose charge threat to survey (tmg units)")
    p.add_argument("--modifier", type=finite_arg, default=0.0, metavar="M",
                   help="inches added to that unit's charge distance")
    run_on = p.add_mutually_exclusive_group()
    run_on.add_argument("--workers", type=int, metavar="N",
                        help="worker processes of a local Dask cluster (0: this process only; "
                             "default: one per core, or this process for a tiny job)")
    run_on.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on an existing Dask cluster (e.g. tcp://10.0.0.5:8786)")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="folder for the results")
    p.add_argument("--width", type=int, default=1600, metavar="PX", help="picture width")
    p.add_argument("--no-pictures", action="store_true", help="numbers only (no OpenGL needed)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar on stderr (default: when stderr is a terminal)")
    p.set_defaults(run=run, text=text)
    return p


# --------------------------------------------------------------------------- what to survey


@dataclass(frozen=True)
class Target:
    layout: str
    deployment: str
    source: str  # the file or name it came from


def _cards_for(width: float, depth: float) -> list[str]:
    return [c for c in maps.deployment_ids()
            if maps.deployment_info(c).get("available")
            and (maps.deployment_info(c)["table"]["width"],
                 maps.deployment_info(c)["table"]["depth"]) == (width, depth)]


def _load(source: str, card: str | None) -> Any:
    """The battlefield of an official layout or a scenario file, with `card` laid on it."""
    doc: Any
    if scenario.is_official_name(source):
        if source in maps.deployment_ids():
            raise TmgError(f"{source!r} is a deployment card; give a map layout or a scenario "
                           "file, and the card with --deployment", obj=source)
        if source not in maps.layout_ids():
            scenario.load(source)  # the loader's one-line "unknown name" error
        doc = {"table": {"layout": source}}
    else:
        doc = scenario.read_document(source)
        if not isinstance(doc, dict) or not isinstance(doc.get("table"), dict):
            raise TmgError("has no [table]", file=source, obj="table")
    if card is not None:
        doc = {**doc, "table": {**doc["table"], "deployment": card}}
    return scenario.parse_document(doc, source)


def targets(args: argparse.Namespace) -> list[tuple[Target, Any]]:
    if args.file is None and not args.all:
        raise TmgError("give a layout or scenario file (or --all for every official layout)")
    sources = [args.file] if args.file is not None else maps.layout_ids()
    out: list[tuple[Target, Any]] = []
    for src in sources:
        stem = src if (maps.layout_ids() and src in maps.layout_ids()) else Path(src).stem
        if args.all:
            base = _load(src, None)
            cards = _cards_for(base.table.width, base.table.depth)
            if not cards:
                raise TmgError(f"no deployment card with geometry fits a {base.table.width:g}x"
                               f"{base.table.depth:g} table", obj=src)
            out += [(Target(stem, c, src), _load(src, c)) for c in cards]
        else:
            bf = _load(src, args.deployment)
            if bf.deployment is None:
                raise TmgError("needs a deployment card for its zones of influence: give "
                               "--deployment CARD (tmg layouts lists them)", obj=src)
            out.append((Target(stem, bf.deployment.id, src), bf))
    return out


def spec_of(args: argparse.Namespace, markers: bool) -> Any:
    if not 0 <= args.size <= 20:
        raise TmgError(f"--size must be between 0 and 20, got {args.size}", obj="--size")
    if not 1 <= args.base_mm <= 300:
        raise TmgError(f"--base-mm must be between 1 and 300 mm, got {args.base_mm:g}",
                       obj="--base-mm")
    charger = _charger(args.unit, args.modifier) if args.unit else None
    if args.measure:
        measures = tuple(dict.fromkeys(args.measure))
        if CHARGE_THREAT in measures and charger is None:
            raise TmgError("the charge threat needs the unit type: --unit TYPE", obj="--measure")
    else:
        measures = (EXPOSURE, SAFE_AREA) + ((MARKERS,) if markers else ()) + \
            ((CHARGE_THREAT,) if charger else ())
    probe = Probe(Base.from_mm(args.base_mm), args.size, args.hidden)
    return SurveySpec(step=args.step, zone_step=args.zone_step, probe=probe, measures=measures,
                      charger=charger)


def _charger(name: str, modifier: float) -> Any:
    u = catalogue.find(name)
    if u is None:
        raise TmgError(f"unknown unit type {name!r} (tmg units lists them)", obj="--unit")
    if u.get("flying"):
        raise TmgError(f"{u['id']} is FLYING: flying units cannot charge (§8.7.7)", obj="--unit")
    missing = [k for k in ("base_mm", "size", "speed") if u.get(k) is None]
    if missing:
        raise TmgError(f"the catalogue does not know the {', '.join(missing)} of {u['id']} "
                       "(nothing is guessed)", obj="--unit")
    abilities = frozenset(catalogue_abilities(u))
    return Charger(u["id"], Base.from_mm(u["base_mm"]), int(u["size"]),
                   Speed.parse(u["speed"]).normal, modifier,
                   large=bool(u.get("large")) or LARGE in abilities, abilities=abilities)


# --------------------------------------------------------------------------- where to run


@dataclass
class Runner:
    executor: Any
    workers: int
    where: str


@contextlib.contextmanager
def runner(args: argparse.Namespace, pairs: int) -> Iterator[Runner]:
    """This process, a LocalCluster, or the cluster at --scheduler (closed on the way out)."""
    if args.scheduler:
        client = _connect(args.scheduler)
        try:
            n = len(client.scheduler_info().get("workers", {}))
            yield Runner(client.get_executor(), n, args.scheduler)
        finally:
            client.close()
        return
    n = (os.cpu_count() or 1) if args.workers is None else args.workers
    if n < 0 or n > 64:
        raise TmgError(f"--workers must be between 0 and 64, got {n}", obj="--workers")
    if n == 0 or (args.workers is None and (pairs < TINY_PAIRS or n == 1)):
        yield Runner(None, 1, "this process")
        return
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        yield Runner(client.get_executor(), n, "local cluster")


def _connect(address: str) -> Any:
    from dask.distributed import Client

    try:
        client = Client(address, timeout="5s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise TmgError(f"cannot reach a Dask scheduler at {address!r} ({type(exc).__name__}: "
                       f"{exc})", obj="--scheduler") from None
    try:
        client.wait_for_workers(1, timeout=30)
    except (OSError, TimeoutError) as exc:
        client.close()
        raise TmgError(f"the Dask scheduler at {address!r} has no workers (start some with "
                       f"`dask worker {address}`): {exc}", obj="--scheduler") from None
    return client


@contextlib.contextmanager
def progress_bar(args: argparse.Namespace) -> Iterator[Any]:
    show = args.progress if args.progress is not None else sys.stderr.isatty()
    if not show:
        yield None
        return
    from tqdm import tqdm

    bar = tqdm(total=0, file=sys.stderr, unit="task", desc="survey", leave=False)

    def update(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()
    try:
        yield update
    finally:
        bar.close()


# --------------------------------------------------------------------------- run


def run(args: argparse.Namespace) -> dict[str, Any]:
    if not MIN_WIDTH <= args.width <= MAX_WIDTH:
        raise TmgError(f"--width must be between {MIN_WIDTH} and {MAX_WIDTH} px, "
                       f"got {args.width}", obj="--width")
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise TmgError(f"the output {args.output!r} is a file, not a folder", obj="-o")
    pairs_of = targets(args)
    jobs = [SurveyJob.make(bf, spec_of(args, bool(bf.markers)), t.layout, t.deployment)
            for t, bf in pairs_of]
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TmgError(f"cannot make the folder {args.output!r}: {exc.strerror}",
                       obj="-o") from None
    with runner(args, estimated_pairs(jobs)) as r, progress_bar(args) as bar:
        results = run_survey(jobs, r.executor, bar)
    return _survey_files.write_all(out, results, [t.source for t, _ in pairs_of], r.workers, r.where,
                           pictures=not args.no_pictures, width=args.width,
                           report=args.all or len(results) > 1)


def text(r: dict[str, Any]) -> str:
    lines = [f"surveyed {len(r['layouts'])} layout × card pair(s), {r['points']} points, "
             f"on {r['where']} ({r['workers']} worker{'s' if r['workers'] != 1 else ''}); "
             f"wrote {r['output']}"]
    for lay in r["layouts"]:
        bits = []
        e, safe = lay.get("exposure"), lay.get("safe-area") or lay.get("exposure")
        if e and e.get("mean") is not None:
            bits.append(f"exposure mean {100 * e['mean']:.0f}%")
        if safe and safe.get("safe_area") is not None:
            bits.append(f"safe area {100 * safe['safe_area']:.0f}%")
        m = lay.get("markers")
        if m and m.get("mean") is not None:
            bits.append(f"marker exposure {100 * m['mean']:.0f}%")
        c = lay.get("charge-threat")
        if c and c.get("mean") is not None:
            bits.append(f"charge roll mean {c['mean']:.1f}, reach {100 * c['reach']:.0f}%")
        lines.append(f"  {lay['layout']} · {lay['deployment']}: " + "; ".join(bits))
    if r.get("report"):
        lines.append(f"report: {r['report']}")
    return "\n".join(lines)
