"""Who may call the HTTP API and how often: X-API-Key checks and per-client sliding-window rate limits.

The limiter is in memory, one process. A sliding log (timestamps of the last window's requests) rather than a
fixed bucket: a client cannot double its rate by straddling a minute boundary, and Retry-After can say exactly when
the oldest request leaves the window.
"""

from __future__ import annotations

import hmac
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, Header, Request
from starlette.exceptions import HTTPException

from indexing.settings import ScholarSettings

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


def client_key(request: Request, api_key: str | None) -> str:
    # Behind a key, the key is the client (one user, many addresses); else the peer address. X-Forwarded-For is
    # not trusted: anyone could send it to get a fresh quota.
    if api_key:
        return f"key:{api_key}"
    return f"ip:{request.client.host if request.client else 'unknown'}"


def auth_dependency(settings: ScholarSettings):
    keys = [k for k in settings.api_keys if k]

    def check(x_api_key: Annotated[str | None, Header(description="Required when the server has API keys.")] = None):
        if not keys:
            return None
        if not x_api_key or not any(hmac.compare_digest(x_api_key.encode(), k.encode()) for k in keys):
            raise HTTPException(401, "missing or invalid X-API-Key header", headers={"WWW-Authenticate": "X-API-Key"})
        return x_api_key

    return check


def rate_dependency(limiter: SlidingWindowLimiter, what: str, auth):
    # A default, not Annotated: string annotations (future import) cannot see the closure's `auth`.
    def check(request: Request, api_key: str | None = Depends(auth)):
        wait = limiter.hit(client_key(request, api_key))
        if wait is not None:
            raise HTTPException(
                429,
                f"rate limit: at most {limiter.limit} {what} per {limiter.window_s:g} s; "
                f"retry in {retry_after_header(wait)} s",
                headers={"Retry-After": retry_after_header(wait)},
            )

    return check
