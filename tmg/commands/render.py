"""`tmg render LAYOUT_OR_SCENARIO -o FILE.png|FILE.svg [--width PX] [--around REF|X,Y
--radius R | --box X0,Y0,X1,Y1] [overlays…]`: the view of `tmg view` as a picture, without a
window the user has to open (a hidden window, or headless EGL when there is no display; an SVG
needs neither).

The picture is `--width` px wide (default 1600), its height follows from the table (or the
close-up) and the legend; the format follows the extension; it is written atomically.
`--around` draws a close-up of R inches around a model, unit, marker, piece or point, with an
inset of the whole table. `--json` prints {`output`, `width`, `height`}, the verdict sentences
drawn under the table (`info`) and `labels_dropped`.
"""

from __future__ import annotations

import argparse
from typing import Any

import shapely

import scenario
from geom.errors import TmgError
from geom.judge import check
from geom.model import Marker, Model, TerrainPiece, Unit
from viewer import draw, options, picture, png, svg
from viewer.overlays import Check
from viewer.scene import build_scene

from . import about

MIN_WIDTH, MAX_WIDTH = 200, 8000
DEFAULT_RADIUS = 4.0


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("render", help=about("render"))
    options.add_options(p, file_optional=True)  # `tmg render --check BEFORE AFTER`
    p.add_argument("-o", "--output", required=True, metavar="FILE.png|FILE.svg",
                   help="the picture (PNG or SVG, by the extension)")
    p.add_argument("--width", type=int, default=1600, metavar="PX",
                   help="picture width in pixels (default 1600)")
    p.add_argument("--check", nargs="+", metavar="FILE",
                   help="a judge's check (tmg check): --check BEFORE AFTER, or FILE --check "
                        "AFTER with FILE the table before; draws the table as the player left "
                        "it (AFTER, solid bases), where the models stood (BEFORE, faint), the "
                        "leader's path and every failure with its witness")
    c = p.add_argument_group("close-up")
    c.add_argument("--around", metavar="REF|X,Y",
                   help="a close-up around a model, unit, marker/N, terrain/ID or point, with "
                        "an inset of the whole table")
    c.add_argument("--radius", type=float, metavar="R",
                   help=f'inches around it (default {DEFAULT_RADIUS:g}")')
    c.add_argument("--box", metavar="X0,Y0,X1,Y1", help="a close-up of this part of the table")
    p.set_defaults(run=run, text=text)
    return p


def closeup_box(bf: Any, args: argparse.Namespace) -> tuple[float, float, float, float] | None:
    """The close-up's world box from --around/--radius or --box (None: the whole table)."""
    if args.box is not None and args.around is not None:
        raise TmgError("give --around or --box, not both")
    if args.radius is not None and args.around is None:
        raise TmgError("--radius goes with --around REF|X,Y")
    if args.box is not None:
        try:
            x0, y0, x1, y1 = (float(v) for v in args.box.split(","))
        except ValueError:
            raise TmgError(f"--box expects X0,Y0,X1,Y1 in inches, got {args.box!r}") from None
        if not (x1 > x0 and y1 > y0) or not all(abs(v) < 1e4 for v in (x0, y0, x1, y1)):
            raise TmgError(f"--box needs X0 < X1 and Y0 < Y1, got {args.box!r}")
        return (x0, y0, x1, y1)
    if args.around is None:
        return None
    thing = options.resolve(bf, args.around, args.file)
    if isinstance(thing, tuple):
        bounds = (thing[0], thing[1], thing[0], thing[1])
    elif isinstance(thing, Model | Marker):
        bounds = (thing.at[0], thing.at[1], thing.at[0], thing.at[1])
    elif isinstance(thing, Unit):
        bounds = shapely.MultiPoint([m.at for m in thing.models]).bounds
    elif isinstance(thing, TerrainPiece):
        bounds = thing.footprint.bounds
    else:
        bounds = thing.bounds
    radius = DEFAULT_RADIUS if args.radius is None else args.radius
    return picture.around(bf.table, tuple(bounds), radius)


def check_files(args: argparse.Namespace) -> str | None:
    """`--check BEFORE AFTER` (no FILE) or `FILE --check AFTER`: sets args.file to BEFORE and
    returns AFTER (None: no check)."""
    files = getattr(args, "check", None)
    if isinstance(files, str):  # a caller that passes one AFTER (the service, the old form)
        files = [files]
    if not files:
        if args.file is None:
            raise TmgError("give a LAYOUT_OR_SCENARIO to draw (or --check BEFORE AFTER)")
        return None
    if len(files) == 2 and args.file is None:
        args.file = files[0]
        return str(files[1])
    if len(files) == 1 and args.file is not None:
        return str(files[0])
    raise TmgError("--check takes BEFORE AFTER (with no LAYOUT_OR_SCENARIO), or one AFTER "
                   f"after FILE, the table before; got FILE {args.file!r} and --check "
                   f"{' '.join(files)}", obj="--check")


def run(args: argparse.Namespace) -> dict[str, Any]:
    if not MIN_WIDTH <= args.width <= MAX_WIDTH:
        raise TmgError(f"--width must be between {MIN_WIDTH} and {MAX_WIDTH} px, "
                       f"got {args.width}")
    if not args.output.lower().endswith(picture.SUFFIXES):
        raise TmgError(f"the output must be a .png or .svg file, got {args.output!r}")
    after_file = check_files(args)
    bf, shapes = options.load(args.file, args.deployment)
    overlays = options.overlays_from_args(bf, args, shapes)
    shown = bf
    if after_file is not None:
        after = scenario.load(after_file, tolerant=True)
        try:
            verdict = check(bf, after)
        except TmgError as exc:
            if exc.file is None:
                raise TmgError(exc.detail, file=after_file, obj=exc.obj,
                               field=exc.field) from None
            raise
        judged = Check(after, verdict, before=bf)
        overlays.append(judged)
        # the table as the player left it, led by the judged leaders; BEFORE drawn faint
        shown = judged.table()
    box = closeup_box(bf, args)
    scene = build_scene(shown, overlays, title=args.title)
    kept = getattr(args, "picture", None)
    if kept is not None:  # the service: the picture in memory, nothing written
        frame = picture_in_memory(scene, args.width, box, kept, args.output[-4:].lower())
    else:
        frame = picture.write_picture(scene, args.output, args.width, box)
    return {"output": str(args.output), "width": frame.width, "height": frame.height,
            "info": list(scene.info), "labels_dropped": list(frame.dropped)}


def picture_in_memory(scene: Any, width: int, box: Any, kept: dict[str, bytes],
                      suffix: str) -> Any:
    """Draw the scene into `kept[suffix]` as the bytes `write_picture` writes to a file of
    that suffix (".svg" or ".png"; a PNG needs OpenGL: a display or headless EGL)."""
    if box is not None:
        picture.prepare_closeup(scene, box)
    frame = picture.frame_of(scene, width, box, True)
    if suffix == ".svg":
        kept[suffix] = svg.svg_text(scene, frame).encode("utf-8")
        return frame
    with draw.Offscreen() as off:
        kept[suffix] = png.encode(off.render(scene, frame).top_down())
    return frame


def text(r: dict[str, Any]) -> str:
    lines = [f"wrote {r['output']} ({r['width']}x{r['height']} px)"]
    lines += [f"  {line}" for line in r["info"]]
    return "\n".join(lines)
