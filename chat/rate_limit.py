"""A per-client sliding-window rate limiter for the HTTP API, in memory, one process.

A sliding log (timestamps of the last window's requests) rather than a fixed bucket: a client cannot double its
rate by straddling a minute boundary, and Retry-After can say exactly when the oldest request leaves the window.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable

# Clients idle for longer than a window are forgotten; sweeping every N calls keeps memory bounded under churn.
_SWEEP_EVERY = 1024


class SlidingWindowLimiter:
    def __init__(self, limit: int, window_s: float = 60.0, clock: Callable[[], float] = time.monotonic):
        self.limit = limit
        self.window_s = window_s
        self._clock = clock
        self._hits: dict[str, deque[float]] = {}
        self._lock = threading.Lock()
        self._calls = 0

    def hit(self, client: str) -> float | None:
        """Count one request from `client`; None when allowed, else the seconds until it would be."""
        if self.limit <= 0:  # 0 or less switches limiting off
            return None
        now = self._clock()
        with self._lock:
            self._calls += 1
            if self._calls % _SWEEP_EVERY == 0:
                self._sweep(now)
            log = self._hits.setdefault(client, deque())
            while log and log[0] <= now - self.window_s:
                log.popleft()
            if len(log) >= self.limit:
                return max(log[0] + self.window_s - now, 0.0)
            log.append(now)
            return None

    def reset(self) -> None:
        with self._lock:
            self._hits.clear()

    def _sweep(self, now: float) -> None:
        stale = [c for c, log in self._hits.items() if not log or log[-1] <= now - self.window_s]
        for client in stale:
            del self._hits[client]


def retry_after_header(seconds: float) -> str:
    # HTTP wants whole seconds; rounding down would invite a retry that is still refused.
    return str(max(1, math.ceil(seconds)))
