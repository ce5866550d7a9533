"""The organization's events: listed, retrieved, and streamed live with resume from the last event id."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from tessera import EventStream, Tessera
from tessera.types import Event


@contextmanager
def watchdog(stream: EventStream, seconds: float = 20) -> Iterator[None]:
    """Closes the stream if the test has not finished reading by then (the loop then ends, and the test fails)."""
    timer = threading.Timer(seconds, stream.close)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def contact_ids(events: list[Event]) -> list[str]:
    return [event.data.object["id"] for event in events]


def test_events_are_listed_and_retrieved(client: Tessera, unique: str) -> None:
    contact = client.contacts.create(name=f"Evented {unique}")
    page = client.events.list(type="contact.created", per_page=5)
    (event,) = [e for e in page.data if e.data.object["id"] == contact.id]
    assert event.type == "contact.created" and event.id.startswith("evt_")
    assert client.events.retrieve(event.id) == event
    assert client.events.list(type="contact.*", created_after=event.timestamp, per_page=1).meta.total >= 1


def test_the_stream_yields_new_events_and_resumes_after_the_last_one(client: Tessera, unique: str) -> None:
    stream = client.events.stream(type="contact.created")
    first = [client.contacts.create(name=f"Stream {unique} {n}").id for n in range(2)]
    seen: list[Event] = []
    with stream, watchdog(stream):
        for event in stream:
            seen.append(event)
            break
    assert contact_ids(seen) == first[:1]
    resume_from = stream.last_event_id
    assert resume_from == seen[0].id

    later = client.contacts.create(name=f"Stream {unique} later").id
    resumed = client.events.stream(type="contact.created", after=resume_from)
    with resumed, watchdog(resumed):
        for event in resumed:
            seen.append(event)
            if len(seen) == 3:
                break
    # Nothing missed, nothing repeated: the second event, then the one made while no stream was open.
    assert contact_ids(seen) == [*first, later]
    assert resumed.last_event_id == seen[-1].id
