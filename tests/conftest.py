import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
# Locally every run draws new random examples (more ground covered over time); in CI
# (CI=true) the examples are derandomised so that a landing is judged on a repeatable run.
os.environ.setdefault("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev")

try:
    from hypothesis import settings

    settings.register_profile("dev", deadline=None, max_examples=100)
    settings.register_profile("ci", deadline=None, max_examples=100, derandomize=True,
                              database=None)
    settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])
except ImportError:  # pragma: no cover
    pass


@pytest.fixture
def examples() -> Path:
    return EXAMPLES
