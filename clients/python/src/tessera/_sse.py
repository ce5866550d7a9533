"""A Server-Sent Events parser, as the WHATWG HTML standard ("Interpreting an event stream") reads one.

Lines end with CRLF, LF or CR (a CRLF split across two chunks counts once); a line starting with
``:`` is a comment; ``data`` lines accumulate, joined by LF; an empty line dispatches the event; an
event left without its empty line when the stream ends is dropped; the last ``id`` carries over
to later events; ``retry`` takes ASCII digits only.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

__all__ = ["SSEDecoder", "ServerSentEvent", "aiter_events", "iter_events"]

_EOL = re.compile(r"\r\n|\r|\n")


class ServerSentEvent:
    """One dispatched event: its type (``message`` unless named), its data, the last id and ``retry``."""

    __slots__ = ("data", "event", "id", "retry")

    def __init__(self, *, event: str = "message", data: str = "", id: str | None = None, retry: int | None = None):
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry

    def json(self) -> Any:
        """The data parsed as JSON."""
        return json.loads(self.data)

    def __repr__(self) -> str:
        return f"ServerSentEvent(event={self.event!r}, data={self.data!r}, id={self.id!r}, retry={self.retry!r})"


class SSEDecoder:
    """Feed it bytes as they arrive; it returns the events each chunk completes."""

    def __init__(self) -> None:
        self._text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer = ""
        self._started = False
        self._after_cr = False
        self._event = ""
        self._data: list[str] = []
        self._last_id: str | None = None
        self._retry: int | None = None

    @property
    def last_event_id(self) -> str | None:
        return self._last_id

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        return self.feed_text(self._text.decode(chunk))

    def feed_text(self, text: str) -> list[ServerSentEvent]:
        if not text:
            return []
        if not self._started:
            self._started = True
            if text.startswith("\ufeff"):
                text = text[1:]
        if self._after_cr and text.startswith("\n"):
            text = text[1:]
        self._after_cr = False
        buffer = self._buffer + text
        events: list[ServerSentEvent] = []
        start = 0
        for match in _EOL.finditer(buffer):
            line = buffer[start : match.start()]
            start = match.end()
            if match.group() == "\r" and start == len(buffer):
                # A CR ending the chunk: an LF opening the next one belongs to the same line end.
                self._after_cr = True
            event = self._line(line)
            if event is not None:
                events.append(event)
        self._buffer = buffer[start:]
        return events

    def end(self) -> list[ServerSentEvent]:
        """The stream ended: a last line without its line end counts; an undispatched event is dropped."""
        rest = self._text.decode(b"", final=True)
        events = self.feed_text(rest) if rest else []
        if self._buffer:
            self._line(self._buffer)
            self._buffer = ""
        self._event, self._data = "", []
        return events

    def _line(self, line: str) -> ServerSentEvent | None:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id":
            if "\x00" not in value:
                self._last_id = value
        elif name == "retry":
            if value.isascii() and value.isdigit():
                self._retry = int(value)
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        if not self._data:
            self._event = ""
            return None
        event = ServerSentEvent(
            event=self._event or "message",
            data="\n".join(self._data),
            id=self._last_id,
            retry=self._retry,
        )
        self._event, self._data = "", []
        return event


def iter_events(chunks: Iterable[bytes], decoder: SSEDecoder | None = None) -> Iterator[ServerSentEvent]:
    """The events of a byte stream."""
    decoder = decoder or SSEDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.end()


async def aiter_events(
    chunks: AsyncIterator[bytes], decoder: SSEDecoder | None = None
) -> AsyncIterator[ServerSentEvent]:
    """The events of an async byte stream."""
    decoder = decoder or SSEDecoder()
    async for chunk in chunks:
        for event in decoder.feed(chunk):
            yield event
    for event in decoder.end():
        yield event
