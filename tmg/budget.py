"""The time budget of one `tmg` command: a question that is still unanswered after `--timeout`
seconds ends with one line and exit status 3 (never an endless wait on an odd scene).

The budget is a real-time alarm in the main thread. `BudgetExceeded` derives from
`BaseException` so that no `except Exception` in the engine can swallow it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

DEFAULT_TIMEOUT = 60.0  # seconds
# a survey is a batch job of many questions (`tmg survey --all` at a 2" step takes minutes):
# its default budget is an hour, still a bound, and `--timeout` sets another
BATCH_TIMEOUT = 3600.0


class BudgetExceeded(BaseException):
    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


@contextmanager
def time_budget(seconds: float | None) -> Iterator[None]:
    """Raise `BudgetExceeded` in the block once `seconds` have passed (None or 0: no budget;
    outside the main thread, where alarms cannot be set, no budget either)."""
    if not seconds or threading.current_thread() is not threading.main_thread() \
            or not hasattr(signal, "setitimer"):
        yield
        return

    def on_alarm(signum: int, frame: object) -> None:
        raise BudgetExceeded(seconds)

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
