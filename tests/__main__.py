"""Run the whole test suite: `python -m tests` (what the README and .ci/run call).

Viewer tests need a display: without one, the suite re-runs itself under `xvfb-run` when that
is installed; otherwise those tests are reported as skipped (never as passed).
"""

import importlib.util
import os
import shutil
import subprocess
import sys

args = [sys.executable, "-m", "pytest", "-q", *sys.argv[1:]]
if importlib.util.find_spec("xdist") is not None and "-n" not in sys.argv:
    args += ["-n", "2"]
if not os.environ.get("DISPLAY") and shutil.which("xvfb-run") and not os.environ.get("TMG_NO_XVFB"):
    args = ["xvfb-run", "-a", "-s", "-screen 0 1920x1200x24", *args]
sys.exit(subprocess.call(args))
