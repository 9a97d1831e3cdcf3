"""Bounded buffers for every websocket, both ways, under Daphne (Twisted and Autobahn).

Daphne reads a socket as fast as the client writes, and queues every message for the
application unread (its protocol's onMessage does `application_queue.put_nowait`), and
Twisted keeps whatever the server writes to a client that does not read. A client that
writes without reading grew the server's memory without bound (gigabytes from one raw
client) and, as every message read went through the one event loop, slowed every game.
The limits per phone (game.web.limits) act only on messages the consumer is handed.

What Daphne offers is used as it is: the largest message and frame it accepts
(settings' DAPHNE_WEBSOCKET_MAX_MESSAGE_SIZE and _FRAME_SIZE, runserver's; the `daphne`
command's --websocket-max-message-size and --websocket-max-frame-size) close a socket
with a bigger one (1009) before it is read whole. The rest is this subclass of Daphne's
websocket protocol, with Twisted's own flow control (docs/performance.md, "A raw
flood", has the measurements; tests/web/test_tuning.py pins what it relies on):

- reading: while the application has QUEUE_HIGH messages of the socket unread, the
  socket is not read (Twisted's `transport.pauseProducing()`): the client's writes wait
  in the kernel's buffers and then in the client, and the event loop serves the other
  games. Reading resumes once the application has taken all but QUEUE_LOW.
- a flood closed (Close.FLOOD, by game.web.consumers, or here once QUEUE_FLOOD
  messages wait: one read of small frames holds thousands): the socket is not read
  again, and what was read with the flood is not queued.
  Autobahn drops it when the client has not answered the close within its
  closeHandshakeTimeout (1 s), instead of reading and queuing its flood meanwhile.
- writing: Twisted tells a registered producer when the socket's write buffer is full
  (more than the transport's bufferSize, 64 KiB, unsent) and when it has drained. A
  socket whose buffer stays full WRITE_STALL seconds is dropped: its client reads
  nothing (a page replaces a socket silent for about 6 s itself).
"""

from __future__ import annotations

from typing import Any

from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol
from twisted.internet.base import DelayedCall
from twisted.internet.interfaces import IPushProducer
from zope.interface import implementer

from game.screens.wire import Close

# Messages of one socket the application has not read yet: reading stops at QUEUE_HIGH
# and goes on once no more than QUEUE_LOW wait. A page sends a heartbeat every 2 s and a
# tap now and then (at most twice the phone's rate at once, 20 by default), and its
# consumer reads each at once; a socket QUEUE_HIGH behind is a script.
QUEUE_HIGH = 32
QUEUE_LOW = 8
# One read (64 KiB) holds thousands of small frames, all parsed at once: a socket with
# this many unread is closed as a flood (Close.FLOOD, as its consumer would close it)
# and the rest is not queued.
QUEUE_FLOOD = 256
# Seconds between two looks at a paused socket's queue.
QUEUE_POLL = 0.02
# Seconds a socket's write buffer may stay full before the socket is dropped.
WRITE_STALL = 15.0


@implementer(IPushProducer)
class WriteWatch:
    """The producer Twisted tells when a socket's write buffer fills and drains
    (IPushProducer): a socket full for WRITE_STALL seconds is dropped."""

    def __init__(self, protocol: FlowControlledProtocol) -> None:
        self.protocol = protocol
        self.stall: DelayedCall | None = None

    def pauseProducing(self) -> None:  # noqa: N802  (Twisted's names)
        if self.stall is None:
            self.stall = self.protocol.factory.reactor.callLater(WRITE_STALL, self.stalled)

    def resumeProducing(self) -> None:  # noqa: N802
        self.cancel()

    def stopProducing(self) -> None:  # noqa: N802
        self.cancel()

    def cancel(self) -> None:
        if self.stall is not None:
            if self.stall.active():
                self.stall.cancel()
            self.stall = None

    def stalled(self) -> None:
        self.stall = None
        self.protocol.dropConnection(abort=True)


class FlowControlledProtocol(WebSocketProtocol):  # type: ignore[misc]  # Daphne ships no types
    """Daphne's websocket protocol, reading no further ahead of its application than
    QUEUE_HIGH messages, nothing after a flood's close, and dropping a socket whose
    client reads nothing (see the module's docstring)."""

    reading_paused = False  # by this protocol (the queue is long, or a flood closed)
    flood_closed = False
    write_watch: WriteWatch | None = None

    def onOpen(self) -> None:  # noqa: N802  (Autobahn's names)
        super().onOpen()
        transport = self.transport
        # The HTTP channel that read the upgrade request is still the transport's
        # producer: Twisted allows one.
        transport.unregisterProducer()
        self.write_watch = WriteWatch(self)
        transport.registerProducer(self.write_watch, True)

    def onMessage(self, payload: bytes, isBinary: bool) -> None:  # noqa: N802, N803
        if self.flood_closed:  # the rest of what was read with the flood: not queued
            return
        queue = getattr(self, "application_queue", None)
        if queue is not None and queue.qsize() >= QUEUE_FLOOD:
            self.serverClose(int(Close.FLOOD))
            return
        super().onMessage(payload, isBinary)
        if not self.reading_paused and queue is not None and queue.qsize() >= QUEUE_HIGH:
            self.reading_paused = True
            self.transport.pauseProducing()
            self.factory.reactor.callLater(QUEUE_POLL, self.read_again)

    def read_again(self) -> None:
        """Resume reading once the application has caught up (looked at every QUEUE_POLL)."""
        if self.flood_closed or self.state == self.STATE_CLOSED:
            return
        if self.application_queue.qsize() > QUEUE_LOW:
            self.factory.reactor.callLater(QUEUE_POLL, self.read_again)
            return
        self.reading_paused = False
        self.transport.resumeProducing()

    def serverClose(self, code: int | None = None) -> None:  # noqa: N802
        super().serverClose(code)
        if code == Close.FLOOD:
            self.flood_closed = self.reading_paused = True
            self.transport.pauseProducing()

    def connectionLost(self, reason: Any) -> None:  # noqa: N802
        if self.write_watch is not None:
            self.write_watch.cancel()
        super().connectionLost(reason)


def install() -> None:
    """Make Daphne build every websocket with FlowControlledProtocol (its factory's
    protocol class, read as each connection is upgraded)."""
    WebSocketFactory.protocol = FlowControlledProtocol
