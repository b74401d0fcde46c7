"""The web view's speed (issue 28), in headless Debian chromium against `tmg serve` on
127.0.0.1 (tests/_browser.py starts both; nothing leaves the machine).

    .venv/bin/python benchmarks/bench_web.py            # 12 loads, 30 taps
    .venv/bin/python benchmarks/bench_web.py --loads 5 --taps 10

1. First paint: navigation to `/#layout=standard-1&card=gauntlet` until the table's SVG (the
   service's /render, tmg render's drawing) is in the DOM (`performance.now()` at insertion,
   measured from the navigation's start). The first load is cold (the server builds the table);
   the rest are warm. Also the full 47-model table (examples/battle-standard-1.toml by #t= link).
2. A tap's answer drawn: two models tapped (line of sight), from the /los response's arrival
   to the next animation frame after its sentence and witness are in the DOM.
3. The page's own script, styles and HTML in bytes (no other file is loaded).
Goals: first paint <= 1 s; answer drawn <= 100 ms after the response; script + styles <= 200 KB.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tomllib
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import _browser as B  # noqa: E402
from tests._service import running_server  # noqa: E402


def tails(xs: list[float]) -> str:
    xs = sorted(xs)
    p99 = xs[min(len(xs) - 1, round(0.99 * (len(xs) - 1)))]
    return (f"n={len(xs)} p50 {statistics.median(xs):.1f} ms, p99 {p99:.1f} ms, "
            f"max {xs[-1]:.1f} ms")


def first_paints(driver: object, url: str, loads: int) -> list[float]:
    out = []
    for _ in range(loads):
        driver.get("about:blank")  # type: ignore[attr-defined]
        driver.get(url)  # type: ignore[attr-defined]
        out.append(float(B.wait_for(driver, "tmgState.paintedAt")))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--loads", type=int, default=12)
    ap.add_argument("--taps", type=int, default=30)
    args = ap.parse_args()
    if (why := B.missing()) is not None:
        sys.exit(why)
    from web.share import encode_fragment

    doc = tomllib.loads((ROOT / "examples" / "battle-standard-1.toml").read_text())
    static = resources.files("web").joinpath("static")
    sizes = {n: len(static.joinpath(n).read_bytes()) for n in ("app.js", "app.css",
                                                                "index.html")}
    with running_server() as url, B.browser() as d:
        B.viewport(d, 1400, 900)
        paints = first_paints(d, url + "/#layout=standard-1&card=gauntlet", args.loads)
        full = first_paints(d, url + "/#t=" + encode_fragment(doc, "bench"), args.loads)
        B.wait_for(d, "tmgState.models.length > 0")
        pairs = [("raynor/1", "marines-b/1"), ("goliath/1", "marauders/1"),
                 ("roaches/1", "zerglings-b/1"), ("queen/1", "marauders/2")]
        at = {ref: d.execute_script(
            "return tmgState.models.find(m => m.ref === arguments[0]).at", ref)
            for pair in pairs for ref in pair}
        drawn = []
        for i in range(args.taps):
            a, b = pairs[i % len(pairs)]
            d.execute_script("tmgState.drawMs = null; tmgState.sel = []")
            B.tap(d, at[a])
            B.tap(d, at[b])
            drawn.append(float(B.wait_for(d, "tmgState.drawMs")))
        foreign = B.foreign(B.request_urls(d))
    print(f"first paint, standard-1 + Gauntlet card: cold {paints[0]:.0f} ms; warm "
          f"{tails(paints[1:])}")
    print(f"first paint, full table (47 models, #t= link): first {full[0]:.0f} ms; "
          f"{tails(full[1:])}")
    print(f"tap's answer drawn after the /los response: {tails(drawn)}")
    own = sizes["app.js"] + sizes["app.css"]
    print(f"page's own files: app.js {sizes['app.js']:,} B, app.css {sizes['app.css']:,} B "
          f"(script + styles {own / 1024:.1f} KB), index.html {sizes['index.html']:,} B")
    print(f"requests off 127.0.0.1: {len(foreign)}")
    ok = (max(paints) <= 1000 and max(drawn) <= 100 and own <= 200 * 1024 and not foreign)
    print("goals met" if ok else "GOALS NOT MET")


if __name__ == "__main__":
    main()
