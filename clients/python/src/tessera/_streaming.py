"""Streams: SYNC's answer as it is written (``sync.chat(stream=True)``) and the organization's events."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, Union

import httpx

from ._exceptions import APIConnectionError, APIError, FieldError, TesseraError
from ._generated.models import Event, Problem, SyncAction, SyncInteraction
from ._models import BaseModel, model
from ._sse import ServerSentEvent, SSEDecoder

if TYPE_CHECKING:
    from ._base_client import AsyncAPIClient, RequestSpec, SyncAPIClient

__all__ = [
    "AsyncChatStream",
    "AsyncEventStream",
    "ChatActionEvent",
    "ChatDeltaEvent",
    "ChatErrorEvent",
    "ChatEvent",
    "ChatInteractionEvent",
    "ChatStream",
    "EventStream",
]


class ChatDeltaEvent(BaseModel):
    """A piece of SYNC's reply text, as it is written."""

    type: Literal["delta"]
    text: str


class ChatActionEvent(BaseModel):
    """A proposed action (one event per action), before the whole interaction."""

    type: Literal["action"]
    action: SyncAction
    _converters = {"action": model(SyncAction)}


class ChatInteractionEvent(BaseModel):
    """The whole interaction, last: reply, actions, sources, status."""

    type: Literal["interaction"]
    interaction: SyncInteraction
    _converters = {"interaction": model(SyncInteraction)}


class ChatErrorEvent(BaseModel):
    """The request failed after the stream had started: the problem the JSON answer would have been."""

    type: Literal["error"]
    error: Problem
    _converters = {"error": model(Problem)}


ChatEvent = Union[ChatDeltaEvent, ChatActionEvent, ChatInteractionEvent, ChatErrorEvent]


def _chat_event(sse: ServerSentEvent) -> ChatEvent | None:
    try:
        data = sse.json()
    except ValueError:
        return None
    if sse.event == "delta" and isinstance(data, Mapping):
        return ChatDeltaEvent({"type": "delta", "text": data.get("text", "")})
    if sse.event == "action":
        return ChatActionEvent({"type": "action", "action": data})
    if sse.event == "interaction":
        return ChatInteractionEvent({"type": "interaction", "interaction": data})
    if sse.event == "error":
        return ChatErrorEvent({"type": "error", "error": data})
    return None  # a kind this version does not know: skipped


def _problem_error(event: ChatErrorEvent) -> APIError:
    problem = event.error.to_dict()
    errors = problem.get("errors")
    detail = problem.get("detail") or problem.get("title") or "SYNC failed"
    code = problem.get("code")
    return APIError(
        f"{problem.get('status', '')} {code}: {detail}".strip(),
        status_code=problem.get("status") if isinstance(problem.get("status"), int) else None,
        code=code if isinstance(code, str) else None,
        request_id=problem.get("request_id") if isinstance(problem.get("request_id"), str) else None,
        errors=[FieldError(e) for e in errors if isinstance(e, dict)] if isinstance(errors, list) else [],
        body=problem,
    )


class _ChatState:
    def __init__(self) -> None:
        self.text = ""
        self.actions: list[SyncAction] = []
        self.interaction: SyncInteraction | None = None
        self.error: ChatErrorEvent | None = None

    def record(self, event: ChatEvent) -> None:
        if isinstance(event, ChatDeltaEvent):
            self.text += event.text
        elif isinstance(event, ChatActionEvent):
            self.actions.append(event.action)
        elif isinstance(event, ChatInteractionEvent):
            self.interaction = event.interaction
        else:
            self.error = event

    def final(self) -> SyncInteraction:
        if self.interaction is not None:
            return self.interaction
        if self.error is not None:
            raise _problem_error(self.error)
        raise TesseraError("the stream ended before SYNC's interaction arrived")


class ChatStream(_ChatState):
    """SYNC's answer as Server-Sent Events: iterate it for ``delta``, ``action``, ``interaction``, ``error``.

    ``text`` holds the reply so far, ``actions`` the proposed actions; ``final_interaction()`` reads
    the rest of the stream and returns the interaction (or raises the error event as an APIError).
    """

    def __init__(self, response: httpx.Response) -> None:
        super().__init__()
        self.response = response
        self._iterator = self._events()

    def _events(self) -> Iterator[ChatEvent]:
        decoder = SSEDecoder()
        try:
            for chunk in self.response.iter_bytes():
                for sse in decoder.feed(chunk):
                    event = _chat_event(sse)
                    if event is not None:
                        self.record(event)
                        yield event
            for sse in decoder.end():
                event = _chat_event(sse)
                if event is not None:
                    self.record(event)
                    yield event
        except httpx.TransportError as exc:
            raise APIConnectionError(f"the stream broke: {exc}", request=self.response.request) from exc
        finally:
            self.response.close()

    def __iter__(self) -> Iterator[ChatEvent]:
        return self._iterator

    def __next__(self) -> ChatEvent:
        return next(self._iterator)

    def final_interaction(self) -> SyncInteraction:
        """The interaction SYNC ends with, reading what is left of the stream."""
        for _ in self._iterator:
            pass
        return self.final()

    def close(self) -> None:
        self.response.close()

    def __enter__(self) -> ChatStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncChatStream(_ChatState):
    """SYNC's answer as Server-Sent Events, ``async for`` it (see ChatStream)."""

    def __init__(self, response: httpx.Response) -> None:
        super().__init__()
        self.response = response
        self._iterator = self._events()

    async def _events(self) -> AsyncIterator[ChatEvent]:
        decoder = SSEDecoder()
        try:
            async for chunk in self.response.aiter_bytes():
                for sse in decoder.feed(chunk):
                    event = _chat_event(sse)
                    if event is not None:
                        self.record(event)
                        yield event
            for sse in decoder.end():
                event = _chat_event(sse)
                if event is not None:
                    self.record(event)
                    yield event
        except httpx.TransportError as exc:
            raise APIConnectionError(f"the stream broke: {exc}", request=self.response.request) from exc
        finally:
            await self.response.aclose()

    def __aiter__(self) -> AsyncIterator[ChatEvent]:
        return self._iterator

    async def __anext__(self) -> ChatEvent:
        return await self._iterator.__anext__()

    async def final_interaction(self) -> SyncInteraction:
        """The interaction SYNC ends with, reading what is left of the stream."""
        async for _ in self._iterator:
            pass
        return self.final()

    async def close(self) -> None:
        await self.response.aclose()

    async def __aenter__(self) -> AsyncChatStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _event_of(sse: ServerSentEvent) -> Event | None:
    try:
        data = sse.json()
    except ValueError:
        return None
    return Event(data) if isinstance(data, dict) else None


def _resume_request(spec: RequestSpec, last_event_id: str | None) -> tuple[dict[str, object], dict[str, str]]:
    """The query and headers of a reconnection: from the last event seen, as EventSource resumes."""
    if last_event_id is None:
        return dict(spec.query), {}
    query = {key: value for key, value in spec.query.items() if key != "after"}
    return query, {"Last-Event-ID": last_event_id}


class EventStream:
    """The organization's new events as they happen (``GET /v1/events/stream``), each an ``Event``.

    The stream is endless: when the connection drops it reconnects by itself, with ``Last-Event-ID``
    set to the last event received, so nothing is missed or repeated. ``last_event_id`` is kept for
    a later ``client.events.stream(after=...)``. Stop with ``break`` and ``close()``, or ``with``.
    """

    def __init__(self, response: httpx.Response, spec: RequestSpec, client: SyncAPIClient) -> None:
        self.response = response
        after = spec.query.get("after")
        self.last_event_id: str | None = after if isinstance(after, str) else None
        self.reconnects = 0
        self._spec = spec
        self._client = client
        self._retry_s = 1.0
        self._closed = False
        self._iterator = self._events()

    def _events(self) -> Iterator[Event]:
        response = self.response
        while True:
            decoder = SSEDecoder()
            try:
                for chunk in response.iter_bytes():
                    for sse in decoder.feed(chunk):
                        self._seen(sse)
                        event = _event_of(sse)
                        if event is not None:
                            yield event
            except (httpx.TransportError, httpx.StreamError):
                pass  # the connection dropped: resume below
            finally:
                response.close()
            if self._closed:
                return
            time.sleep(self._retry_s)
            response = self._reconnect()

    def _seen(self, sse: ServerSentEvent) -> None:
        if sse.id:
            self.last_event_id = sse.id
        if sse.retry is not None:
            self._retry_s = sse.retry / 1000

    def _reconnect(self) -> httpx.Response:
        query, headers = _resume_request(self._spec, self.last_event_id)
        response: httpx.Response = self._client.request(
            "GET",
            self._spec.path,
            query=query,
            headers=headers,
            options=self._spec.options,
            stream=True,
            parse=_raw,
        )
        self.reconnects += 1
        self.response = response
        return response

    def __iter__(self) -> Iterator[Event]:
        return self._iterator

    def __next__(self) -> Event:
        return next(self._iterator)

    def close(self) -> None:
        self._closed = True
        self.response.close()

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncEventStream:
    """The organization's new events as they happen, ``async for`` it (see EventStream)."""

    def __init__(self, response: httpx.Response, spec: RequestSpec, client: AsyncAPIClient) -> None:
        self.response = response
        after = spec.query.get("after")
        self.last_event_id: str | None = after if isinstance(after, str) else None
        self.reconnects = 0
        self._spec = spec
        self._client = client
        self._retry_s = 1.0
        self._closed = False
        self._iterator = self._events()

    async def _events(self) -> AsyncIterator[Event]:
        response = self.response
        while True:
            decoder = SSEDecoder()
            try:
                async for chunk in response.aiter_bytes():
                    for sse in decoder.feed(chunk):
                        if sse.id:
                            self.last_event_id = sse.id
                        if sse.retry is not None:
                            self._retry_s = sse.retry / 1000
                        event = _event_of(sse)
                        if event is not None:
                            yield event
            except (httpx.TransportError, httpx.StreamError):
                pass
            finally:
                await response.aclose()
            if self._closed:
                return
            await asyncio.sleep(self._retry_s)
            query, headers = _resume_request(self._spec, self.last_event_id)
            response = await self._client.request(
                "GET",
                self._spec.path,
                query=query,
                headers=headers,
                options=self._spec.options,
                stream=True,
                parse=_raw,
            )
            self.reconnects += 1
            self.response = response

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._iterator

    async def __anext__(self) -> Event:
        return await self._iterator.__anext__()

    async def close(self) -> None:
        self._closed = True
        await self.response.aclose()

    async def __aenter__(self) -> AsyncEventStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _raw(response: httpx.Response, spec: Any, client: Any) -> httpx.Response:
    return response


def chat_stream(response: httpx.Response, spec: RequestSpec, client: SyncAPIClient) -> ChatStream:
    return ChatStream(response)


def async_chat_stream(response: httpx.Response, spec: RequestSpec, client: AsyncAPIClient) -> AsyncChatStream:
    return AsyncChatStream(response)


def event_stream(response: httpx.Response, spec: RequestSpec, client: SyncAPIClient) -> EventStream:
    return EventStream(response, spec, client)


def async_event_stream(response: httpx.Response, spec: RequestSpec, client: AsyncAPIClient) -> AsyncEventStream:
    return AsyncEventStream(response, spec, client)
