import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
os.environ.setdefault("HYPOTHESIS_PROFILE", "ci")

try:
    from hypothesis import settings

    settings.register_profile("ci", deadline=None, max_examples=100)
    settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])
except ImportError:  # pragma: no cover
    pass


@pytest.fixture
def examples() -> Path:
    return EXAMPLES
