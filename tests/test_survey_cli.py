"""`tmg survey` (the command contract): JSON keys, the files it writes, the --all report, bad
input, and real Dask clusters (a LocalCluster started by the command, and one started here and
reached with --scheduler)."""

from __future__ import annotations

import csv
import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

import survey as S
from tmg.cli import main

FAST = ["--step", "4", "--zone-step", "6", "--no-pictures"]


def survey(capsys, *argv):
    assert main(["survey", *argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_json_keys_files_and_numbers(capsys, tmp_path):
    r = survey(capsys, "standard-1", "--deployment", "gauntlet", *FAST, "--workers", "0",
               "-o", str(tmp_path))
    assert r["output"] == str(tmp_path) and r["workers"] == 1
    assert r["measures"] == ["exposure", "safe-area", "markers"]
    (lay,) = r["layouts"]
    assert (lay["layout"], lay["deployment"]) == ("standard-1", "gauntlet")
    for m in r["measures"]:
        assert {"mean", "min", "max"} <= lay[m].keys()
    assert 0 < lay["exposure"]["safe_area"] < 1 and lay["safe-area"]["safe_area"] > 0
    assert 0 <= lay["exposure"]["min"] <= lay["exposure"]["mean"] <= lay["exposure"]["max"] <= 1
    d = tmp_path / "standard-1--gauntlet"
    table = rows(d / "points.csv")
    assert len(table) == 14 * 9  # one row per 4" cell of a 54"x36" table
    standing = [t for t in table if t["stands"] == "1"]
    assert r["points"] == len(standing) == lay["points"]
    doc = json.loads((d / "survey.json").read_text())
    assert doc["summary"]["exposure"]["mean"] == pytest.approx(lay["exposure"]["mean"])
    # the table's numbers are the engine's
    e = np.array([float(t["exposure_blue_zone"]) for t in standing])
    assert np.nanmean(np.concatenate([e, [float(t["exposure_red_zone"]) for t in standing]])) == \
        pytest.approx(lay["exposure"]["mean"], abs=1e-6)
    assert all(t["exposure_blue_zone"] == "" for t in table if t["stands"] == "0")
    assert {m["id"] for m in doc["markers"]} == {1, 2, 3, 4, 5}
    assert json.loads((tmp_path / "survey.json").read_text())["points"] == r["points"]


def test_text_output_says_where_it_ran(capsys, tmp_path):
    assert main(["survey", "skirmish-2", "--deployment", "frontier", *FAST, "--workers", "0",
                 "--measure", "exposure", "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "skirmish-2 · frontier: exposure mean" in out and "this process" in out


def test_all_cards_of_a_layout_make_a_ranked_report(capsys, tmp_path):
    r = survey(capsys, "skirmish-1", "--all", "--step", "6", "--zone-step", "6",
               "--no-pictures", "--workers", "0", "--measure", "exposure", "-o", str(tmp_path))
    cards = [x["deployment"] for x in r["layouts"]]
    assert cards == ["abandoned-camp", "agria-valley", "dirt-side", "frontier", "char-plains"]
    md = (tmp_path / "report.md").read_text()
    assert r["report"] == str(tmp_path / "report.md")
    assert md.count("| skirmish-1 |") == 0 and md.count("](#skirmish-1--") == 5
    assert md.count("§9.3 layout check:") == 5 and "[NO]" in md or "[ok]" in md
    # ranked by mean exposure, least first
    means = [float(line.split("|")[4].strip().rstrip("%")) for line in md.splitlines()
             if line.startswith("| ") and "](#skirmish-1--" in line]
    assert means == sorted(means) and len(means) == 5


def test_a_scenario_file_with_its_card(capsys, tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('[table]\nwidth = 36\ndepth = 36\ndeployment = "frontier"\n\n'
                 '[[terrain]]\nid = "block"\nsize = 3\nrect = { center = [18, 18], width = 8, '
                 'depth = 2 }\n\n[[unit]]\nid = "ignored"\ntype = "marine"\nowner = "red"\n'
                 'models = [[30, 30]]\n')
    r = survey(capsys, str(f), *FAST, "--workers", "0", "-o", str(tmp_path / "out"))
    (lay,) = r["layouts"]
    assert (lay["layout"], lay["deployment"]) == ("mine", "frontier")
    assert (tmp_path / "out" / "mine--frontier" / "points.csv").is_file()


@pytest.mark.parametrize("argv, message", [
    (["standard-1", "-o", "X"], "needs a deployment card"),
    (["gauntlet", "-o", "X"], "is a deployment card"),
    (["nowhere-9", "--deployment", "gauntlet", "-o", "X"], "nowhere-9"),
    (["standard-1", "--deployment", "frontier", "-o", "X"], "frontier"),
    (["standard-1", "--deployment", "encounter", "-o", "X"], "no geometry"),
    (["standard-1", "--deployment", "gauntlet", "--step", "0.01", "-o", "X"], "--step"),
    (["standard-1", "--deployment", "gauntlet", "--measure", "charge-threat", "-o", "X"],
     "--unit"),
    (["standard-1", "--deployment", "gauntlet", "--unit", "nobody", "-o", "X"], "nobody"),
    (["standard-1", "--deployment", "gauntlet", "--unit", "point-defense-drone", "-o", "X"], "FLYING"),
    (["standard-1", "--deployment", "gauntlet", "--size", "-1", "-o", "X"], "--size"),
    (["standard-1", "--deployment", "gauntlet", "--workers", "-3", "-o", "X"], "--workers"),
    (["-o", "X"], "give a layout"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, argv, message):
    argv = [str(tmp_path / a) if a == "X" else a for a in argv]
    assert main(["survey", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and err.startswith("tmg survey: ")


def test_bad_usage_is_argparse_exit_2(capsys, tmp_path):
    assert main(["survey", "standard-1", "--measure", "fire-lanes", "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tmg survey: error:") and "fire-lanes" in err
    assert main(["survey", "standard-1", "--deployment", "gauntlet", "--all",
                 "-o", str(tmp_path)]) == 2
    assert "not allowed with" in capsys.readouterr().err


def test_output_that_is_a_file_is_refused(capsys, tmp_path):
    f = tmp_path / "file.txt"
    f.write_text("x")
    assert main(["survey", "standard-1", "--deployment", "gauntlet", "-o", str(f)]) == 2
    assert "is a file" in capsys.readouterr().err


def test_an_unreachable_scheduler_is_one_line(capsys, tmp_path):
    t = time.monotonic()
    assert main(["survey", "skirmish-1", "--deployment", "frontier", *FAST, "--scheduler",
                 "tcp://127.0.0.1:9", "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "cannot reach a Dask scheduler" in err and err.count("\n") == 1
    assert time.monotonic() - t < 30


# --------------------------------------------------------------------------- real clusters


@pytest.fixture(scope="module")
def cluster():
    import logging

    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=logging.ERROR) as c, \
            Client(c) as client:
        yield c, client


def _job():
    import maps
    from geom.model import Battlefield

    lay = maps.load_layout("skirmish-3")
    dep = maps.load_deployment("agria-valley")
    bf = Battlefield(lay.table, lay.terrain, markers=dep.markers, deployment=dep)
    return S.SurveyJob.make(bf, S.SurveySpec(step=3.0, zone_step=4.0, tile_cells=20),
                            "skirmish-3", "agria-valley")


def test_a_local_cluster_really_runs_the_tasks(cluster):
    _, client = cluster
    job = _job()
    pids = set(client.run(os.getpid).values())
    assert len(pids) == 2 and os.getpid() not in pids
    alone = S.run([job])[0]
    got = S.run([job], client.get_executor())[0]
    assert got.processes and got.processes <= pids  # every task ran on a worker
    for name in alone.columns:
        assert np.array_equal(alone.columns[name], got.columns[name], equal_nan=True)
    assert alone.markers == got.markers


def test_the_command_on_an_existing_cluster_matches_this_process(capsys, tmp_path, cluster):
    c, _ = cluster
    base = ["skirmish-3", "--deployment", "agria-valley", "--step", "3", "--zone-step", "4",
            "--no-pictures"]
    r = survey(capsys, *base, "--scheduler", c.scheduler_address, "-o", str(tmp_path / "a"))
    assert r["workers"] == 2 and r["where"] == c.scheduler_address
    survey(capsys, *base, "--workers", "0", "-o", str(tmp_path / "b"))
    for name in ("points.csv", "survey.json"):
        assert (tmp_path / "a" / "skirmish-3--agria-valley" / name).read_bytes() == \
            (tmp_path / "b" / "skirmish-3--agria-valley" / name).read_bytes()


def test_the_command_starts_its_own_local_cluster(capsys, tmp_path):
    r = survey(capsys, "skirmish-2", "--deployment", "dirt-side", *FAST, "--workers", "2",
               "--measure", "exposure", "-o", str(tmp_path))
    assert r["workers"] == 2 and r["where"] == "local cluster"


def test_the_help_names_every_measure(capsys):
    from tmg.cli import build_parser

    # argparse may wrap the help inside a name (charge-|threat): compare without white space
    text = "".join(build_parser(["survey"]).commands["survey"].format_help().split())
    assert "".join(f"one or more of {', '.join(S.MEASURES)} (default".split()) in text
