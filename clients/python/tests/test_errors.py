"""Every error class from a real answer of the server, and the credential never leaking."""

from __future__ import annotations

import logging
import pickle

import httpx
import pytest

from conftest import Server
from tessera import (
    APIConnectionError,
    APIError,
    APIStatusError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    Tessera,
    TesseraError,
    UnprocessableEntityError,
)


def test_a_missing_key_fails_at_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TESSERA_API_KEY", raising=False)
    with pytest.raises(TesseraError, match="TESSERA_API_KEY"):
        Tessera()
    with pytest.raises(TesseraError):
        Tessera(api_key="sk_live_x", access_token="tok")
    with pytest.raises(TesseraError):
        Tessera(access_token="tok", refresh_token="ref")  # no client_id to refresh with
    with pytest.raises(TesseraError):
        Tessera(api_key="sk_live_x", base_url="127.0.0.1:8787")


def test_the_key_and_url_come_from_the_environment(monkeypatch: pytest.MonkeyPatch, server: Server) -> None:
    monkeypatch.setenv("TESSERA_API_KEY", server.key)
    monkeypatch.setenv("TESSERA_BASE_URL", server.url)
    with Tessera() as client:
        assert client.base_url == server.url
        assert client.me.retrieve().credential.type == "api_key"
    monkeypatch.delenv("TESSERA_BASE_URL")
    assert Tessera().base_url == "http://127.0.0.1:8787"


def test_400_bad_request(client: Tessera) -> None:
    with pytest.raises(BadRequestError) as raised:
        client.invoices.list(status="late")
    error = raised.value
    assert isinstance(error, APIStatusError) and isinstance(error, APIError) and isinstance(error, TesseraError)
    assert error.status_code == 400
    assert error.code == "invalid_request"
    assert error.request_id and error.request_id.startswith("req_")
    assert error.errors[0].param == "status" and error.errors[0].code == "invalid"
    assert "unknown value 'late'" in error.message
    assert isinstance(error.body, dict) and error.body["title"] == "Bad request"
    assert error.headers["content-type"].startswith("application/problem+json")
    assert error.response.status_code == 400


def test_401_a_bad_key(server: Server) -> None:
    with Tessera(api_key="sk_live_not_a_key", base_url=server.url) as bad:
        with pytest.raises(AuthenticationError) as raised:
            bad.me.retrieve()
    assert raised.value.code == "invalid_token"
    assert 'error="invalid_token"' in raised.value.headers["www-authenticate"]


def test_403_a_key_without_the_scope(client: Tessera, server: Server, unique: str) -> None:
    key = client.api_keys.create(name=f"finance read {unique}", kind="engine", engines=["finance"], access="read")
    with Tessera(api_key=key.secret, base_url=server.url) as restricted:
        assert restricted.invoices.list(per_page=1).meta.per_page == 1
        with pytest.raises(PermissionDeniedError) as raised:
            restricted.contacts.list()
        assert raised.value.code == "insufficient_scope"
        with pytest.raises(PermissionDeniedError):
            restricted.invoices.create(client="x", currency="EUR", due_date="2030-01-01", amount=1)


def test_404_not_found(client: Tessera) -> None:
    with pytest.raises(NotFoundError) as raised:
        client.contacts.retrieve("con_doesnotexist")
    assert raised.value.code == "not_found"
    assert "con_doesnotexist" in raised.value.message


def test_409_conflict(client: Tessera, unique: str) -> None:
    client.candidates.create(name="A", email=f"dup-{unique}@example.com", position="x")
    with pytest.raises(ConflictError) as raised:
        client.candidates.create(name="B", email=f"DUP-{unique}@example.com", position="x")
    assert raised.value.code == "conflict"


def test_422_unprocessable(client: Tessera) -> None:
    with pytest.raises(UnprocessableEntityError) as raised:
        client.invoices.create(client="Acme", currency="eur", due_date="2030-02-30", amount=-1)
    params = {e.param for e in raised.value.errors}
    assert {"amount", "currency", "due_date"} <= params
    assert raised.value.code == "validation_failed"


def test_an_idempotency_key_reused_with_another_body_is_a_422(client: Tessera, unique: str) -> None:
    client.contacts.create(name="First", idempotency_key=f"reuse-{unique}")
    with pytest.raises(UnprocessableEntityError) as raised:
        client.contacts.create(name="Second", idempotency_key=f"reuse-{unique}")
    assert raised.value.code == "idempotency_key_reused"


def test_no_server_at_all_is_an_api_connection_error() -> None:
    with Tessera(api_key="sk_live_x", base_url="http://127.0.0.1:9", max_retries=0) as nowhere:
        with pytest.raises(APIConnectionError):
            nowhere.me.retrieve()


def test_the_key_never_appears_in_a_repr_an_error_or_a_log_line(
    client: Tessera, server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    texts = [repr(client), str(client), repr(client.invoices), repr(client.with_options(timeout=3))]
    for call in (
        lambda: client.invoices.list(status="late"),
        lambda: client.contacts.retrieve("con_nope"),
        lambda: Tessera(api_key=server.key, base_url="http://127.0.0.1:9", max_retries=1).me.retrieve(),
    ):
        with pytest.raises(APIError) as raised:
            call()
        error = raised.value
        texts += [str(error), repr(error), str(error.body), str(error.headers), str(error.request)]
        texts.append(str(pickle.dumps(error.args)))
    with Tessera(access_token=server.key, base_url=server.url) as oauth_style:
        texts.append(repr(oauth_style))
    texts += [record.getMessage() for record in caplog.records]
    assert any("retrying" in text for text in texts)  # the log was captured
    for text in texts:
        assert server.key not in text
        assert server.key[8:20] not in text


def test_an_httpx_client_can_be_given(server: Server) -> None:
    with httpx.Client(headers={"X-Custom": "1"}) as http:
        client = Tessera(api_key=server.key, base_url=server.url, http_client=http)
        assert client.me.retrieve().object == "me"
        client.close()  # not ours to close
        assert not http.is_closed
