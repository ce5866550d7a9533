"""Retries and transport faults, against a scripted server of the test's own (tests/scripted.py)."""

from __future__ import annotations

import email.utils
import json
import time

import httpx
import pytest

from scripted import Reset, Respond, Stream, problem, scripted
from tessera import (
    APIConnectionError,
    APIError,
    APIStatusError,
    APITimeoutError,
    AsyncTessera,
    BadRequestError,
    InternalServerError,
    RateLimitError,
    Tessera,
)
from tessera._exceptions import retry_after_seconds

CONTACT = {
    "id": "con_1",
    "object": "contact",
    "name": "Ada",
    "email": None,
    "phone": None,
    "company": None,
    "tags": [],
    "lifecycle_stage": "lead",
    "metadata": {},
    "created_at": "2026-01-01T00:00:00Z",
    "updated_at": "2026-01-01T00:00:00Z",
}
PAGE = {"data": [CONTACT], "meta": {"total": 1, "page": 1, "per_page": 25}}
PROBLEM = "application/problem+json"


def client_for(url: str, **options: object) -> Tessera:
    return Tessera(api_key="sk_live_scripted", base_url=url, **options)  # type: ignore[arg-type]


def test_a_429_waits_for_retry_after_then_succeeds() -> None:
    with scripted(
        Respond(429, problem(429, "rate_limited"), {"Retry-After": "1"}, content_type=PROBLEM),
        Respond(200, PAGE),
    ) as server:
        page = client_for(server.url).contacts.list()
    assert page.data[0].name == "Ada"
    assert len(server.requests) == 2
    assert server.gaps[0] >= 1.0


def test_retry_after_ms_is_honoured() -> None:
    with scripted(
        Respond(503, problem(503, "unavailable"), {"retry-after-ms": "700"}, content_type=PROBLEM),
        Respond(200, PAGE),
    ) as server:
        client_for(server.url).contacts.list()
    assert server.gaps[0] >= 0.7


def test_a_503_then_200_retries_a_post_with_the_same_idempotency_key() -> None:
    with scripted(
        Respond(503, problem(503, "unavailable"), content_type=PROBLEM),
        Respond(503, problem(503, "unavailable"), content_type=PROBLEM),
        Respond(201, CONTACT),
    ) as server:
        contact = client_for(server.url).contacts.create(name="Ada")
    assert contact.id == "con_1"
    keys = [request.headers.get("idempotency-key") for request in server.requests]
    assert len(keys) == 3 and keys[0] and len(set(keys)) == 1
    # Jittered exponential backoff from 0.5 s: at least 0.375 s, then at least 0.75 s.
    assert server.gaps[0] >= 0.37
    assert server.gaps[1] >= 0.74
    # The body is the same bytes on every attempt (the server compares it with the key's first request).
    assert len({request.body for request in server.requests}) == 1


def test_each_call_has_its_own_idempotency_key_unless_one_is_given() -> None:
    with scripted(Respond(201, CONTACT)) as server:
        client = client_for(server.url)
        client.contacts.create(name="Ada")
        client.contacts.create(name="Ada")
        client.contacts.create(name="Ada", idempotency_key="order-4711")
        client.contacts.update("con_1", name="Ada")
        client.contacts.retrieve("con_1")
    keys = [request.headers.get("idempotency-key") for request in server.requests]
    assert keys[0] and keys[1] and keys[0] != keys[1]
    assert keys[2] == "order-4711"
    assert keys[3]  # PATCH too
    assert keys[4] is None  # never on a GET


def test_a_connection_reset_mid_response_is_retried() -> None:
    with scripted(Reset(), Respond(200, PAGE)) as server:
        page = client_for(server.url).contacts.list()
    assert page.meta.total == 1
    assert len(server.requests) == 2
    assert server.gaps[0] >= 0.37


def test_a_connection_reset_every_time_is_an_api_connection_error() -> None:
    with scripted(Reset()) as server:
        with pytest.raises(APIConnectionError) as raised:
            client_for(server.url, max_retries=1).contacts.list()
    assert not isinstance(raised.value, APITimeoutError)
    assert len(server.requests) == 2


def test_a_slow_response_past_the_timeout_is_retried_then_an_api_timeout_error() -> None:
    with scripted(Respond(200, PAGE, delay=1.5)) as server:
        client = client_for(server.url, timeout=0.3, max_retries=1)
        started = time.monotonic()
        with pytest.raises(APITimeoutError):
            client.contacts.list()
        waited = time.monotonic() - started
    assert len(server.requests) == 2
    assert waited >= 0.3 + 0.37 + 0.3


def test_the_per_request_timeout_and_max_retries_override_the_clients() -> None:
    with scripted(Respond(200, PAGE, delay=1.0)) as server:
        client = client_for(server.url, max_retries=3)
        with pytest.raises(APITimeoutError):
            client.contacts.list(timeout=0.2, max_retries=0)
    assert len(server.requests) == 1


def test_a_400_is_never_retried() -> None:
    with scripted(
        Respond(400, problem(400, "invalid_request", "status: unknown value"), content_type=PROBLEM)
    ) as server:
        with pytest.raises(BadRequestError) as raised:
            client_for(server.url).contacts.list()
    assert len(server.requests) == 1
    assert raised.value.code == "invalid_request"
    assert raised.value.request_id == "req_scripted"


def test_a_409_and_a_422_are_never_retried() -> None:
    for status, code in ((409, "conflict"), (422, "validation_failed")):
        with scripted(Respond(status, problem(status, code), content_type=PROBLEM)) as server:
            with pytest.raises(APIStatusError) as raised:
                client_for(server.url).contacts.create(name="x")
        assert raised.value.status_code == status
        assert len(server.requests) == 1


def test_exhausted_retries_raise_the_last_error() -> None:
    reset = str(int(time.time()) + 30)
    with scripted(
        Respond(
            429, problem(429, "rate_limited"), {"Retry-After": "0", "X-RateLimit-Reset": reset}, content_type=PROBLEM
        )
    ) as server:
        with pytest.raises(RateLimitError) as raised:
            client_for(server.url, max_retries=2).contacts.list()
    assert len(server.requests) == 3
    assert raised.value.status_code == 429
    assert raised.value.retry_after == 0
    assert raised.value.reset_at is not None and int(raised.value.reset_at.timestamp()) == int(reset)
    with scripted(Respond(500, problem(500, "internal"), content_type=PROBLEM)) as server:
        with pytest.raises(InternalServerError):
            client_for(server.url, max_retries=0).contacts.list()
    assert len(server.requests) == 1


def test_an_408_is_retried() -> None:
    with scripted(Respond(408, None), Respond(200, PAGE)) as server:
        client_for(server.url).contacts.list()
    assert len(server.requests) == 2


def test_with_options_changes_retries_for_a_copy_only() -> None:
    with scripted(Respond(503, problem(503, "unavailable"), content_type=PROBLEM)) as server:
        client = client_for(server.url, max_retries=2)
        with pytest.raises(InternalServerError):
            client.with_options(max_retries=0).contacts.list()
        assert len(server.requests) == 1
        assert client.max_retries == 2


def test_retry_after_reads_seconds_an_http_date_and_milliseconds() -> None:
    assert retry_after_seconds(httpx.Headers({"Retry-After": "3"})) == 3
    later = email.utils.formatdate(time.time() + 10, usegmt=True)
    assert 8 <= (retry_after_seconds(httpx.Headers({"Retry-After": later})) or 0) <= 10
    assert retry_after_seconds(httpx.Headers({"retry-after-ms": "250"})) == 0.25
    assert retry_after_seconds(httpx.Headers({"Retry-After": "soon"})) is None
    assert retry_after_seconds(httpx.Headers({})) is None


def test_a_function_post_that_failed_is_not_sent_twice() -> None:
    failed = problem(500, "function_failed")
    with scripted(Respond(500, failed, content_type=PROBLEM)) as server:
        with pytest.raises(InternalServerError) as raised:
            client_for(server.url).functions.invoke("hello", body={"x": 1})
    assert raised.value.code == "function_failed"
    assert len(server.requests) == 1
    # A GET may run again.
    with scripted(Respond(500, failed, content_type=PROBLEM), Respond(200, {"ok": True})) as server:
        answer = client_for(server.url).functions.invoke("hello")
    assert answer.json() == {"ok": True}
    assert [request.method for request in server.requests] == ["GET", "GET"]


def test_the_event_stream_resumes_from_the_last_event_id_after_the_connection_drops() -> None:
    def event(n: int) -> bytes:
        body = f'{{"id":"evt_{n}","object":"event","type":"contact.created","timestamp":"t","data":{{"object":{{}}}}}}'
        return f"id: evt_{n}\nevent: contact.created\ndata: {body}\n\n".encode()

    with scripted(
        Stream([b": open\n\n", event(1), event(2)], reset=True),
        Stream([b": open\n\n", b"retry: 100\n\n", event(3)]),
        Stream([b": open\n\n"]),
    ) as server:
        client = client_for(server.url)
        seen = []
        with client.events.stream(type="contact.*") as events:
            for received in events:
                seen.append(received.id)
                if len(seen) == 3:
                    break
            assert events.last_event_id == "evt_3"
            assert events.reconnects == 1
    assert seen == ["evt_1", "evt_2", "evt_3"]
    first, second = server.requests[0], server.requests[1]
    assert first.headers.get("accept") == "text/event-stream"
    assert "last-event-id" not in first.headers
    assert second.headers.get("last-event-id") == "evt_2"
    assert "type=contact.%2A" in second.path or "type=contact.*" in second.path


async def test_the_async_client_retries_too() -> None:
    with scripted(
        Respond(503, problem(503, "unavailable"), content_type=PROBLEM),
        Respond(201, CONTACT),
    ) as server:
        async with AsyncTessera(api_key="sk_live_scripted", base_url=server.url) as client:
            contact = await client.contacts.create(name="Ada")
    assert contact.name == "Ada"
    assert len(server.requests) == 2
    assert server.requests[0].headers["idempotency-key"] == server.requests[1].headers["idempotency-key"]
    assert server.gaps[0] >= 0.37


def test_a_success_that_is_not_json_is_an_api_error() -> None:
    with scripted(Respond(200, None, {"Content-Type": "text/html"})) as server:
        with pytest.raises(APIError) as raised:
            client_for(server.url).me.retrieve()
    assert raised.value.status_code == 200
    assert "expected a JSON object" in raised.value.message


def test_an_error_event_in_a_sync_stream_is_yielded_and_raised_by_final_interaction() -> None:
    failure = json.dumps(problem(500, "internal", "boom") | {"request_id": "req_1"})
    with scripted(
        Stream([b'event: delta\r\ndata: {"text":"Work"}\r\n\r\n', f"event: error\ndata: {failure}\n\n".encode()])
    ) as server:
        stream = client_for(server.url).sync.chat(message="hi", stream=True)
        kinds = [event.type for event in stream]
        assert kinds == ["delta", "error"]
        assert stream.error is not None and stream.error.error.code == "internal"
        with pytest.raises(APIError) as raised:
            stream.final_interaction()
    assert raised.value.code == "internal" and raised.value.request_id == "req_1" and raised.value.status_code == 500
    assert stream.text == "Work"
    assert server.requests[0].headers["accept"] == "text/event-stream"
    assert server.requests[0].json() == {"message": "hi"}
