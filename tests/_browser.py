"""A headless Debian chromium driven by selenium, for the web view's tests and benchmark.

The browser is Debian's `chromium` with its `chromedriver` (/usr/bin): selenium's Service is
given the driver's path so Selenium Manager downloads nothing, and chromium's own background
traffic (updates, sync, safe browsing, metrics) is turned off, so every request the browser
makes is one the page made. The performance log (CDP Network events) lets a test list them.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

CHROMIUM = os.environ.get("TMG_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("TMG_CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--no-first-run",
         "--no-default-browser-check", "--disable-client-side-phishing-detection",
         "--disable-domain-reliability", "--metrics-recording-only", "--mute-audio",
         "--safebrowsing-disable-auto-update", "--disable-features=Translate,OptimizationHints,"
         "MediaRouter,DialMediaRouteProvider,AutofillServerCommunication",
         "--window-size=1400,900"]


def missing() -> str | None:
    """Why the browser cannot run here (None when it can)."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (os.path.exists(path) or shutil.which(path)):
            return f"{path} is not installed (apt-get install chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    return None


@contextmanager
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in FLAGS:
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


def viewport(driver: Any, width: int, height: int, mobile: bool = False) -> None:
    """The page's viewport exactly width×height CSS pixels (a phone: touch, DPR 1)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": mobile})


def wait_for(driver: Any, script: str, timeout: float = 30.0) -> Any:
    """Poll `return (script)` until it is truthy; its value (AssertionError on time out)."""
    deadline = time.monotonic() + timeout
    while True:
        value = driver.execute_script(f"return ({script});")
        if value:
            return value
        if time.monotonic() > deadline:
            errors = driver.execute_script(
                "return document.getElementById('answers').innerText")
            raise AssertionError(f"timed out waiting for {script!r}; answers: {errors!r}")
        time.sleep(0.05)


def request_urls(driver: Any) -> list[str]:
    """Every URL the browser asked for since the last call (CDP Network events)."""
    urls = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg.get("method") == "Network.requestWillBeSent":
            urls.append(msg["params"]["request"]["url"])
    return urls


def foreign(urls: list[str], host: str = "127.0.0.1") -> list[str]:
    """The URLs that went anywhere but `host` (data: and blob: stay in the page)."""
    return [u for u in urls if urlsplit(u).scheme not in ("data", "blob")
            and urlsplit(u).hostname != host]


def world_to_client(driver: Any, at: tuple[float, float]) -> tuple[float, float]:
    """Where a table point (inches) is on the screen, in CSS pixels of the viewport: the
    page's own mapping (the drawing's scale and offsets, the board's screen matrix)."""
    x, y = driver.execute_script("""
      const t = tmgState.tr, b = document.getElementById('board');
      const p = b.createSVGPoint();
      p.x = t.ox + t.scale * arguments[0]; p.y = t.h - (t.oy + t.scale * arguments[1]);
      const q = p.matrixTransform(b.getScreenCTM()); return [q.x, q.y];""", *at)
    return float(x), float(y)


def tap(driver: Any, at: tuple[float, float], dx: float = 0.0) -> None:
    """A tap at a table point (inches), or `dx` CSS pixels right of it."""
    from selenium.webdriver.common.action_chains import ActionChains

    x, y = world_to_client(driver, at)
    x += dx
    chain = ActionChains(driver)
    chain.w3c_actions.pointer_action.move_to_location(round(x), round(y))
    chain.w3c_actions.pointer_action.pointer_down()
    chain.w3c_actions.pointer_action.pointer_up()
    chain.perform()


def drag(driver: Any, start: tuple[float, float], end: tuple[float, float],
         steps: int = 6) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    (x0, y0), (x1, y1) = world_to_client(driver, start), world_to_client(driver, end)
    chain = ActionChains(driver)
    p = chain.w3c_actions.pointer_action
    p.move_to_location(round(x0), round(y0))
    p.pointer_down()
    for i in range(1, steps + 1):
        p.move_to_location(round(x0 + (x1 - x0) * i / steps),
                           round(y0 + (y1 - y0) * i / steps))
        p.pause(0.03)
    p.pointer_up()
    chain.perform()
