"""The SSE parser, on the cases the WHATWG standard spells out."""

from __future__ import annotations

from tessera._sse import SSEDecoder, iter_events


def events(*chunks: bytes) -> list[tuple[str, str, str | None]]:
    return [(e.event, e.data, e.id) for e in iter_events(chunks)]


def test_multi_line_data_is_joined_with_line_feeds() -> None:
    assert events(b"event: delta\ndata: one\ndata: two\n\n") == [("delta", "one\ntwo", None)]


def test_comments_and_unknown_fields_are_ignored() -> None:
    assert events(b": open\n\n: keep-alive\nfoo: bar\ndata: x\n\n") == [("message", "x", None)]


def test_crlf_cr_and_lf_all_end_lines_even_split_across_chunks() -> None:
    assert events(b"data: a\r\n\r\ndata: b\r\rdata: c\n\n") == [
        ("message", "a", None),
        ("message", "b", None),
        ("message", "c", None),
    ]
    # A CRLF split between two chunks is one line end, not two (which would dispatch early).
    assert events(b"data: a\r", b"\ndata: b\r\n", b"\r\n") == [("message", "a\nb", None)]


def test_a_space_after_the_colon_is_dropped_once_and_a_field_without_colon_has_no_value() -> None:
    assert events(b"data:  two spaces\n\ndata\n\n") == [("message", " two spaces", None), ("message", "", None)]


def test_the_last_id_carries_over_and_retry_takes_digits_only() -> None:
    decoder = SSEDecoder()
    out = decoder.feed(b"id: evt_1\ndata: a\n\ndata: b\n\nretry: 2x\nretry: 1500\nid: evt_2\ndata: c\n\n")
    assert [(e.data, e.id, e.retry) for e in out] == [("a", "evt_1", None), ("b", "evt_1", None), ("c", "evt_2", 1500)]
    assert decoder.last_event_id == "evt_2"


def test_an_event_without_its_blank_line_at_the_end_is_dropped_and_empty_data_dispatches_nothing() -> None:
    assert events(b"event: x\n\ndata: kept\n\ndata: lost") == [("message", "kept", None)]


def test_utf8_split_inside_a_character_and_a_leading_bom() -> None:
    text = "data: héllo €\n\n".encode()
    assert events(b"\xef\xbb\xbf" + text[:8], text[8:12], text[12:]) == [("message", "héllo €", None)]


def test_json_data() -> None:
    (event,) = list(iter_events([b'event: interaction\ndata: {"id": "sint_1"}\n\n']))
    assert event.json() == {"id": "sint_1"}
