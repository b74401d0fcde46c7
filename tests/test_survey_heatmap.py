"""Survey heatmaps (viewer.heatmap): the scene primitives say what the survey says, and the
pictures `tmg survey` writes show each cell in its class's colour."""

from __future__ import annotations

import json
from xml.etree import ElementTree

import numpy as np
import pytest
import shapely
from shapely.geometry import box

import survey as S
from geom.model import Base, Battlefield, Deployment, Marker, Table, TerrainPiece
from survey._job import Charger, Probe, SurveySpec
from tmg.cli import main
from viewer import heatmap as H
from viewer import style as st
from viewer.layout import frame_for_width

from . import test_viewer_render as render_tests
from .test_viewer_render import blend, close_to, in_boxes, label_boxes
from .test_viewer_scene import decode_png

T = Table(24, 12)
off = render_tests.off  # the shared OpenGL context fixture


@pytest.fixture(scope="module")
def res():
    dep = Deployment("t", "T", T, zones={"red": box(0, 0, 24, 3), "blue": box(0, 9, 24, 12)})
    bf = Battlefield(T, (TerrainPiece("wall", 3, box(6, 5, 18, 6.5)),
                         TerrainPiece("hill", 3, box(19, 4, 23, 7), standable=True,
                                      access_points=(box(19, 4, 19.6, 7),))),
                     markers=(Marker(1, (12, 8)), Marker(2, (4, 4))), deployment=dep, name="t")
    spec = SurveySpec(step=1.0, zone_step=2.0, probe=Probe(Base.from_mm(32), 2),
                      measures=(S.EXPOSURE, S.SAFE_AREA, S.MARKERS))
    return S.run([S.SurveyJob.make(bf, spec, "t", "t")])[0]


def test_exposure_classes():
    cls = H.exposure_class(np.array([0.0, 1e-9, 0.1, 0.1000001, 0.55, 1.0, np.nan]))
    assert cls.tolist() == [0, 1, 1, 2, 6, 10, -1]
    assert len(H.exposure_classes()) == 11


def test_pictures_of_every_measure(res):
    assert [p.name for p in H.pictures(res)] == ["exposure-from-blue", "exposure-from-red",
                                                  "safe-area", "markers"]


def test_exposure_cells_are_coloured_by_their_class(res):
    pic = H.exposure_picture(res, "blue")
    cls = H.exposure_class(res.columns["exposure_blue_zone"])
    heat = [p for p in pic.layer.prims if p.tag.startswith("heat:exposure:blue:")]
    classes = H.exposure_classes()
    covered = shapely.union_all([p.geom for p in heat])
    # every standing cell is filled, and nothing else
    assert covered.area == pytest.approx(res.stands.sum())
    for p in heat:
        i = int(p.tag.rsplit(":", 1)[1])
        assert p.colour == classes[i][0]
        assert p.geom.area == pytest.approx((cls == i).sum())
    # the legend: safe, unpainted cells, then a colour bar of the ten classes in order
    safe, none, bar = pic.layer.legend[:3]
    assert (safe.kind, safe.colour, none.text) == ("fill", H.SAFE, "no model can stand here")
    assert bar.kind == "ramp" and "share of the blue zone" in bar.text
    assert [c for f, c in bar.stops[::2]] == [c for c, _ in classes[1:]]
    assert [f for f, _ in bar.stops] == pytest.approx([i / 10 for i in range(10)
                                                       for i in (i, i + 1)])
    assert [t for _, t in bar.ticks] == ["0%", "20%", "40%", "60%", "80%", "100%"]
    texts = [e.text for e in pic.layer.legend]
    assert "blue zone sample" in texts and "contest reach of a marker" in texts
    assert any("Exposure to the blue zone: mean" in s for s in pic.layer.info)
    # one dot per sample of the blue zone
    assert sum(p.tag == "heat:sample" for p in pic.layer.prims) == len(res.zones["blue"])


def test_safe_and_markers_pictures_follow_the_columns(res):
    pic = H.safe_picture(res)
    both = (res.columns["safe_blue_zone"] == 1) & (res.columns["safe_red_zone"] == 1)
    area = sum(p.geom.area for p in pic.layer.prims if p.tag == "heat:safe:0")
    assert area == pytest.approx(both.sum())
    mk = H.markers_picture(res)
    cells = sum(len(m["contest_cells"]) for m in res.markers)
    assert sum(p.geom.area for p in mk.layer.prims if p.tag.startswith("heat:markers:")) == \
        pytest.approx(cells)
    assert len([p for p in mk.layer.prims if p.tag.startswith("heat:contest:")]) >= 2


def test_charge_picture_classes():
    dep = Deployment("t", "T", T, zones={"red": box(0, 0, 24, 2), "blue": box(0, 10, 24, 12)})
    bf = Battlefield(T, deployment=dep)
    spec = SurveySpec(step=4.0, zone_step=6.0, measures=(S.CHARGE_THREAT,),
                      charger=Charger("marine", Base.from_mm(32), 2, 1))
    r = S.run([S.SurveyJob.make(bf, spec, "t", "t")])[0]
    pic = H.charge_picture(r, "blue")
    roll = r.columns["charge_roll_blue_zone"]
    for i in range(6):
        a = sum(p.geom.area for p in pic.layer.prims if p.tag == f"heat:charge:blue:{i}")
        assert a == pytest.approx(16 * (roll == i + 1).sum())
    none = (r.columns["charge_reach_blue_zone"] == 0).sum()
    assert none > 0  # Speed 1: the far row is out of reach
    assert sum(p.geom.area for p in pic.layer.prims if p.tag == "heat:charge:blue:6") == \
        pytest.approx(16 * none)
    bar, no_roll = pic.layer.legend[:2]
    assert bar.kind == "ramp" and [t for _, t in bar.ticks] == [f"{r}+" for r in range(1, 7)]
    assert [c for _, c in bar.stops[::2]] == [c for c, _ in H.charge_classes()[:6]]
    assert no_roll.text == "no roll reaches it"


# --------------------------------------------------------------------------- pixels


@pytest.mark.viewer
def test_rendered_cells_have_their_class_colour(off, res):
    pic = H.exposure_picture(res, "blue")
    scene = H.scene_of(res, pic)
    frame = frame_for_width(scene, 1200)
    img = off.render(scene, frame).top_down()
    boxes = label_boxes(frame, pad=4)
    cls = H.exposure_class(res.columns["exposure_blue_zone"])
    checked = set()
    for k in np.nonzero(res.stands)[0].tolist():
        x0, y0, x1, y1 = res.grid.cell(k)
        if y0 < 3 or y1 > 9 or cls[k] in checked:  # away from the zones' tint and samples
            continue
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if res.level[k] != "ground" or min(cx % 6, 6 - cx % 6) < 0.3 or \
                min(cy % 6, 6 - cy % 6) < 0.3:
            continue
        px, py = frame.transform.to_px((cx, cy))
        if in_boxes(px, py, boxes):
            continue
        got = img[frame.height - int(round(py)), int(round(px))]
        assert close_to(got, blend(H.exposure_classes()[cls[k]][0], st.MAT), tol=10), (k, got)
        checked.add(cls[k])
    assert len(checked) >= 3


@pytest.mark.viewer
def test_tmg_survey_writes_the_pictures(off, capsys, tmp_path):
    assert main(["survey", "skirmish-1", "--deployment", "frontier", "--step", "3",
                 "--zone-step", "6", "--workers", "0", "--width", "800", "-o", str(tmp_path),
                 "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    (lay,) = r["layouts"]
    names = ["exposure-from-blue", "exposure-from-red", "safe-area", "markers"]
    assert lay["pictures"] == [f"{n}.{x}" for n in names for x in ("png", "svg")]
    d = tmp_path / "skirmish-1--frontier"
    for name in names:
        img = decode_png((d / f"{name}.png").read_bytes())
        assert img.shape[1] == 800 and img.shape[0] > 700
        assert len(np.unique(img.reshape(-1, 3), axis=0)) > 50
        root = ElementTree.fromstring((d / f"{name}.svg").read_bytes())  # valid XML
        assert root.get("width") == "800" and int(root.get("height")) == img.shape[0]
        assert len(root.findall(".//{http://www.w3.org/2000/svg}path")) > 20
