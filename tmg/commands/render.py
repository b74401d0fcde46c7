"""`tmg render LAYOUT_OR_SCENARIO -o FILE.png [--width PX] [overlays…]` (docs/interface.md, docs/viewer.md).

Draws the same view as `tmg view` into a PNG without a window the user has to open (a hidden
window, or headless EGL when there is no display at all). The picture is `--width` px wide
(default 1600), its height follows from the table and the legend; it is written atomically.
`--json` prints {`output`, `width`, `height`} and the verdict sentences drawn under the table.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from geom.errors import TmgError

MIN_WIDTH, MAX_WIDTH = 200, 8000


def register(sub: Any) -> argparse.ArgumentParser:
    from viewer import options

    p = sub.add_parser("render", help="draw the table (and overlays) to a PNG picture")
    options.add_options(p)
    p.add_argument("-o", "--output", required=True, metavar="FILE.png", help="the picture")
    p.add_argument("--width", type=int, default=1600, metavar="PX",
                   help="picture width in pixels (default 1600)")
    p.set_defaults(run=run, text=text)
    return p


def run(args: argparse.Namespace) -> dict[str, Any]:
    from viewer import options, png
    from viewer.layout import frame_for_width
    from viewer.scene import build_scene

    if not MIN_WIDTH <= args.width <= MAX_WIDTH:
        raise TmgError(f"--width must be between {MIN_WIDTH} and {MAX_WIDTH} px, "
                       f"got {args.width}")
    out = Path(args.output)
    if out.suffix.lower() != ".png":
        raise TmgError(f"the output must be a .png file, got {args.output!r}")
    if out.is_dir():
        raise TmgError(f"the output {args.output!r} is a directory")
    bf, shapes = options.load(args.file, args.deployment)
    overlays = options.overlays_from_args(bf, args, shapes)
    scene = build_scene(bf, overlays, title=args.title)
    frame = frame_for_width(scene, args.width)
    from viewer import draw  # after the loading: a bad file never needs OpenGL

    with draw.Offscreen() as off:
        picture = off.render(scene, frame)
    png.write(out, picture.top_down())
    return {"output": str(out), "width": frame.width, "height": frame.height,
            "info": list(scene.info), "labels_dropped": list(frame.dropped)}


def text(r: dict[str, Any]) -> str:
    lines = [f"wrote {r['output']} ({r['width']}x{r['height']} px)"]
    lines += [f"  {line}" for line in r["info"]]
    return "\n".join(lines)
