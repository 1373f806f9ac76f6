"""A read timeout for `scholar serve` and the chat's server (and so the API mounted in it): uvicorn waits forever
for a request's headers and body, so a client sending them a byte at a time holds a connection (and, with many, the
server) for as long as it likes."""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


class ReadTimeoutH11Protocol(H11Protocol):
    """Closes a connection whose request (headers and body) has not fully arrived `read_timeout_s` after it began
    to be awaited: on connect and after each response."""

    read_timeout_s = 15.0
    _read_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._arm()

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
            self._disarm()  # the whole request is in: what follows is the app's time, not the client's

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        # The connection is the websocket protocol's from here on (the chat's Socket.IO): its request has arrived
        # whole, and the timer must not close a transport that no longer carries HTTP requests.
        self._disarm()
        super().handle_websocket_upgrade(event)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request on this connection gets the same bound

    def connection_lost(self, exc) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._read_timer = self.loop.call_later(self.read_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _too_slow(self) -> None:
        self._read_timer = None
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
            self.logger.info("closing a connection whose request did not arrive within %gs", self.read_timeout_s)
            self.transport.close()


def protocol_with_timeout(seconds: float) -> type[ReadTimeoutH11Protocol]:
    return type("ReadTimeoutH11Protocol", (ReadTimeoutH11Protocol,), {"read_timeout_s": seconds})


class ReadTimeoutUvicorn:
    """The `uvicorn` module as Chainlit's launcher sees it, with `Config` giving every server it builds this read
    timeout. Chainlit builds its uvicorn.Config itself (chainlit.cli.run_chainlit, after loading the app) and has no
    option for the protocol; `chat.ui.launch.start` puts this in its place."""

    def __init__(self, seconds: float):
        import uvicorn

        self.module = uvicorn
        self.read_timeout_s = seconds

    def Config(self, *args, **kwargs):  # named as what it stands in for: uvicorn.Config
        kwargs.setdefault("http", protocol_with_timeout(self.read_timeout_s))
        return self.module.Config(*args, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self.module, name)
