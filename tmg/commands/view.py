"""`tmg view LAYOUT_OR_SCENARIO [--deployment CARD] [--save FILE.toml] [overlays…]`: the table
in a pyglet window — pan, zoom, fit; click to inspect, measure, ask for sight, templates,
charges and close combat; edit mode (`D`) to move, turn, add and remove models, `S` to save the
table as a TOML scenario.

Keys and tools are listed in `viewer.interact`; `docs/viewer.md` is the user's guide. Without a
display the command stops with a message suggesting `tmg render` or `xvfb-run`.
"""

from __future__ import annotations

import argparse
from typing import Any

from geom.errors import TmgError
from viewer import backend, options, window
from viewer.interact import Viewer

from . import about


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("view", help=about("view"))
    options.add_options(p)
    p.add_argument("--size", default="1400x950", metavar="WxH",
                   help="window size in pixels (default 1400x950, shrunk to fit the screen)")
    p.add_argument("--save", metavar="FILE.toml",
                   help="where `S` saves the table (default: NAME-edited.toml beside the "
                        "scenario, or in the working directory for an official name)")
    p.set_defaults(run=run, text=text)
    return p


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise TmgError(f"--size expects WxH in pixels, got {text!r}") from None
    if not (200 <= w <= 10000 and 200 <= h <= 10000):
        raise TmgError(f"--size must be between 200x200 and 10000x10000, got {text!r}")
    return w, h


def run(args: argparse.Namespace) -> dict[str, Any]:
    w, h = parse_size(args.size)
    if args.save is not None and not args.save.lower().endswith(".toml"):
        raise TmgError(f"--save expects a .toml file, got {args.save!r}")
    bf, shapes = options.load(args.file, args.deployment)
    fixed = options.overlays_from_args(bf, args, shapes)
    if not backend.has_display():
        raise backend.window_error(RuntimeError("no display"), interactive=True)
    window.run(Viewer(bf, title=args.title, fixed=fixed, source=args.file,
                      save_path=args.save), w, h)
    return {"closed": True}


def text(r: dict[str, Any]) -> str:
    return ""
