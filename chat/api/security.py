"""Who may call the HTTP API and how often: X-API-Key or the host chat's login, and per-client sliding-window
rate limits.

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

from chat.sessions import SessionIssuer, load_secret, memory_key
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
        if self.limit <= 0:  # 0 switches limiting off (the settings refuse a negative rate)
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

    def peek(self, client: str) -> float | None:
        """Like `hit`, without counting a request: None when one would be allowed now."""
        if self.limit <= 0:
            return None
        now = self._clock()
        with self._lock:
            log = self._hits.get(client)
            recent = [t for t in log or () if t > now - self.window_s]
            if len(recent) >= self.limit:
                return max(recent[0] + self.window_s - now, 0.0)
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


def client_key(request: Request, owner: str | None) -> str:
    # Behind a key or a login, that is the client (one user, many addresses); else the peer address.
    # X-Forwarded-For is not trusted: anyone could send it to get a fresh quota.
    if owner:
        return owner
    return f"ip:{request.client.host if request.client else 'unknown'}"


FAILED_KEYS_PER_MINUTE = 10

# The login of the app the API is mounted in (the chat's): the request's logged-in user name, or None.
LoginCheck = Callable[[Request], str | None]


class ApiAuth:
    """Who is calling: the owner of a request is `key:<X-API-Key>` or `user:<chat login>`, or None for anyone.

    With no API keys and no login everyone is trusted alike (a server on one's own machine). Keys turn on X-API-Key;
    mounted in a chat with a password login, the chat's login (its cookie, or its token as `Authorization: Bearer`)
    counts as well, so that the API does not answer the very callers the chat's login page turns away.
    """

    def __init__(self, settings: ScholarSettings, login: LoginCheck | None = None):
        self.keys = [k for k in settings.api_keys if k]
        self.login = login
        # Counted per address before the key is compared: over the limit, even a right key is refused for the rest
        # of the minute, or a guesser could keep guessing and learn from the one answer that differs.
        self.failures = SlidingWindowLimiter(FAILED_KEYS_PER_MINUTE)

    @property
    def required(self) -> bool:
        return bool(self.keys) or self.login is not None

    def key_valid(self, key: str | None) -> bool:
        return key is not None and any(hmac.compare_digest(key.encode(), k.encode()) for k in self.keys)

    def owner(self, request: Request, x_api_key: str | None) -> str | None:
        """The request's owner if its credentials hold, else None; counts and raises nothing (for /api/health)."""
        if self.keys and self.key_valid(x_api_key):
            return f"key:{x_api_key}"
        if self.login is not None:
            name = self.login(request)
            if name:
                return f"user:{name}"
        return None

    def trusted(self, request: Request, x_api_key: str | None) -> bool:
        return not self.required or self.owner(request, x_api_key) is not None

    def _key_owner(self, request: Request, x_api_key: str | None) -> str:
        peer = client_key(request, None)
        wait = self.failures.peek(peer)
        if wait is not None:
            raise HTTPException(429, f"too many invalid X-API-Key headers from this address; retry in "
                                     f"{retry_after_header(wait)} s", headers={"Retry-After": retry_after_header(wait)})
        if not self.key_valid(x_api_key):
            self.failures.hit(peer)
            raise HTTPException(401, "missing or invalid X-API-Key header", headers={"WWW-Authenticate": "X-API-Key"})
        return f"key:{x_api_key}"

    def dependency(self):
        def check(request: Request,
                  x_api_key: Annotated[str | None, Header(description="Required when the server has API keys.")]
                  = None) -> str | None:
            if not self.required:
                return None
            if self.keys and (x_api_key is not None or self.login is None):
                return self._key_owner(request, x_api_key)  # a key that is sent must be right, login or not
            owner = self.owner(request, None)
            if owner is not None:
                return owner
            what = "log in to the chat first (its cookie, or its token as Authorization: Bearer)"
            raise HTTPException(401, what + (" or send an X-API-Key header" if self.keys else ""),
                                headers={"WWW-Authenticate": "Bearer"})

        return check


def rate_dependency(limiter: SlidingWindowLimiter, what: str, auth):
    # A default, not Annotated: string annotations (future import) cannot see the closure's `auth`.
    def check(request: Request, owner: str | None = Depends(auth)):
        wait = limiter.hit(client_key(request, owner))
        if wait is not None:
            raise HTTPException(
                429,
                f"rate limit: at most {limiter.limit} {what} per {limiter.window_s:g} s; "
                f"retry in {retry_after_header(wait)} s",
                headers={"Retry-After": retry_after_header(wait)},
            )

    return check


class SessionScope:
    """The owner-scoped memory key of an API session (chat.sessions). The issuing secret is read on first use, so
    an API that only searches writes nothing."""

    def __init__(self, settings: ScholarSettings):
        self._settings = settings
        self._secret_path = settings.resolved_memory_db.parent / "session-secret"
        self._issuer: SessionIssuer | None = None
        self._lock = threading.Lock()

    def issuer(self) -> SessionIssuer:
        with self._lock:
            if self._issuer is None:
                self._issuer = SessionIssuer(self._secret())
            return self._issuer

    def _secret(self) -> bytes:
        if self._settings.database_url:  # replicas: an ID issued by one is valid on every other
            from chat.database import memory_database, shared_secret

            return bytes.fromhex(shared_secret(memory_database(self._settings), "api-sessions"))
        return load_secret(self._secret_path)

    def issue(self) -> str:
        return self.issuer().issue()

    def memory_key(self, owner: str | None, session_id: str | None) -> str | None:
        """A session belongs to its owner (a key, a chat login: any ID they choose is theirs alone), or without
        either to whoever holds the server-signed ID."""
        if session_id is None:
            return None
        if owner:
            return memory_key("api", owner, session_id)
        if not self.issuer().valid(session_id):
            raise HTTPException(422, "session_id: not a session this server issued; POST /api/sessions for one "
                                     "(without API keys only issued IDs are accepted, so that no one can continue "
                                     "another's conversation)")
        return memory_key("api", "anonymous", session_id)
