"""`tmg report`, the README's main job, on the embedded example."""

import json

from tmg.cli import main


def test_report_on_ridge_example(capsys, examples):
    assert main(["report", str(examples / "ridge-dispute.toml"), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    m1 = r["info"]["units"][0]["models"][0]
    assert (m1["elevation"], m1["effective_size"]) == ("high", 6)
    # The Size-2 marines on the Size-4 ridge see over the Size-5 wall (§7.1.2).
    s = next(x for x in r["sight"] if x["attacker"] == "marines" and x["target"] == "zerglings")
    assert s["visible"] and len(s["visible_models"]) == 4
    # Everyone shooting at the marines on high ground gives them high ground cover (§7.1.3).
    back = next(x for x in r["sight"] if x["attacker"] == "zerglings")
    assert back["high_ground_cover"] is True
    assert all(c["in_coherency"] for c in r["coherency"])
    assert set(r["markers"]) == {"5"}


def test_report_text_runs_on_every_example(capsys, examples):
    for f in sorted(examples.glob("*.toml")):
        assert main(["report", str(f)]) == 0, f
        out = capsys.readouterr().out
        assert "coherency" in out
