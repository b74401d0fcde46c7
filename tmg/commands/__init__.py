"""The `tmg` subcommands: one module per command, listed in `COMMANDS`.

The registry names each command's module and its one-line help, so that `tmg --help` imports no
command module and `tmg los …` imports only `tmg.commands.los` (and what it needs). A new command
is one line here plus its module, which exposes `register(sub)` (adds its parser with
`sub.add_parser(NAME, help=about(NAME), …)` — the help is written here once — and sets `run`:
args → JSON-able dict, `text`: dict → str).
`tests/test_cli.py` fails when a module in this folder is missing from the registry.
"""

from __future__ import annotations

# name on the command line -> (module in tmg.commands, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "charge": ("charge", "can a charge succeed, on what roll, and where does it end"),
    "check": ("check", "a judge's check: could the unit have got from BEFORE to AFTER by one legal "
              "action (per model: rule, reason, excess)"),
    "check-layout": ("check_layout", "check a layout against the terrain guidelines of §9.3"),
    "coherency": ("coherency", 'unit coherency: wholly within 3" (4" with Squadron) of the '
                  "leading model and valid coherency links"),
    "disengage": ("disengage", "disengage: who gets clear, who is destroyed, whether the leading "
                  "model can (§8.5.4)"),
    "distance": ("distance", "base-to-base distance, WITHIN and WHOLLY WITHIN"),
    "engaged": ("engaged", "are two models or units engaged, and if not, why"),
    "fight": ("fight", "close combat: fighting and supporting ranks, close ranks, casualty order "
              "(§8.8.1, §8.7.5)"),
    "info": ("info", "summary of a scenario: terrain, units, elevations"),
    "layouts": ("layouts", "list the official map layouts and deployment cards"),
    "los": ("los", "line of sight between models, units or a marker, with the witness line or "
            "the blocking pieces"),
    "markers": ("markers", "contest and control of the mission markers (§8.9.1)"),
    "move": ("move", "is a move legal: shortest legal path, gap clearance, elevation, end "
             "position"),
    "render": ("render", "draw the table (and overlays) to a PNG or SVG picture"),
    "report": ("report", "the main job: a readable report on a scenario"),
    "serve": ("serve", "run the engine as an HTTP service: every command an endpoint, warm "
              "tables (docs/service.md)"),
    "survey": ("survey", "heatmaps of a whole table: exposure, safe area, markers, charge threat "
               "(on Dask when asked)"),
    "template": ("template", "models hit by a blast or flamer template (main target and "
                 "spillover)"),
    "units": ("units", "list the built-in unit catalogue, or show one entry with its abilities "
              "and their sources"),
    "view": ("view", "open the table in a window (pan, zoom, click to ask)"),
}


def about(name: str) -> str:
    """A command's one-line help, as `tmg --help` lists it."""
    return COMMANDS[name][1]


# Commands that never end by themselves (a window, a server): no time budget.
INTERACTIVE = frozenset({"view", "serve"})
# Batch jobs of many questions: the longer default budget (`tmg.budget.BATCH_TIMEOUT`).
BATCH = frozenset({"survey"})
