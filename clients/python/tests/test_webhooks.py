"""Webhook verification: Standard Webhooks' own test vectors, RFC 8032's, and deliveries the server sends."""

from __future__ import annotations

import base64
import hashlib
import hmac
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from math import floor

import pytest

import tessera
from conftest import Server
from tessera import Tessera, TesseraError, WebhookVerificationError
from tessera._ed25519 import verify as ed25519_verify

# --- Standard Webhooks' test vectors -------------------------------------------------------------
# Copied from standard-webhooks/standard-webhooks, libraries/python/tests/test_webhooks.py (MIT):
# the same message id, payload and secret, and the signature test_sign_function expects.
DEFAULT_MSG_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
DEFAULT_PAYLOAD = '{"test": 2432232314}'
DEFAULT_SECRET = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
TOLERANCE = 5 * 60


def signed_headers(timestamp: float | None = None) -> dict[str, str]:
    """PayloadForTesting of the upstream tests: the headers of DEFAULT_PAYLOAD signed now (or at ``timestamp``)."""
    ts = str(floor(time.time() if timestamp is None else timestamp))
    to_sign = f"{DEFAULT_MSG_ID}.{ts}.{DEFAULT_PAYLOAD}".encode()
    signature = base64.b64encode(hmac.new(base64.b64decode(DEFAULT_SECRET), to_sign, hashlib.sha256).digest()).decode()
    return {"webhook-id": DEFAULT_MSG_ID, "webhook-signature": "v1," + signature, "webhook-timestamp": ts}


@pytest.mark.parametrize("header", ["webhook-id", "webhook-timestamp", "webhook-signature"])
def test_a_missing_header_raises(header: str) -> None:
    headers = signed_headers()
    del headers[header]
    with pytest.raises(WebhookVerificationError):
        tessera.webhooks.verify(DEFAULT_PAYLOAD, headers, DEFAULT_SECRET)


def test_an_invalid_timestamp_raises() -> None:
    headers = {**signed_headers(), "webhook-timestamp": "hello"}
    with pytest.raises(WebhookVerificationError):
        tessera.webhooks.verify(DEFAULT_PAYLOAD, headers, DEFAULT_SECRET)


def test_an_invalid_signature_raises() -> None:
    headers = {**signed_headers(), "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA="}
    with pytest.raises(WebhookVerificationError):
        tessera.webhooks.verify(DEFAULT_PAYLOAD, headers, DEFAULT_SECRET)


def test_a_valid_signature_returns_the_json() -> None:
    event = tessera.webhooks.verify(DEFAULT_PAYLOAD, signed_headers(), DEFAULT_SECRET)
    assert event.to_dict()["test"] == 2432232314


def test_headers_are_case_insensitive() -> None:
    headers = {name.title(): value for name, value in signed_headers().items()}
    assert tessera.webhooks.verify(DEFAULT_PAYLOAD.encode(), headers, DEFAULT_SECRET).to_dict()["test"] == 2432232314


def test_an_old_or_future_timestamp_fails() -> None:
    for offset in (-TOLERANCE - 1, TOLERANCE + 1):
        with pytest.raises(WebhookVerificationError):
            tessera.webhooks.verify(DEFAULT_PAYLOAD, signed_headers(time.time() + offset), DEFAULT_SECRET)
    # Within the tolerance it passes; the tolerance can be set.
    tessera.webhooks.verify(DEFAULT_PAYLOAD, signed_headers(time.time() - TOLERANCE + 5), DEFAULT_SECRET)
    with pytest.raises(WebhookVerificationError):
        tessera.webhooks.verify(DEFAULT_PAYLOAD, signed_headers(time.time() - 60), DEFAULT_SECRET, tolerance=30)


def test_several_signatures_pass_when_one_matches() -> None:
    headers = signed_headers()
    headers["webhook-signature"] = " ".join(
        [
            "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
            "v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
            headers["webhook-signature"],
            "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
        ]
    )
    assert tessera.webhooks.verify(DEFAULT_PAYLOAD, headers, DEFAULT_SECRET).to_dict()["test"] == 2432232314


def test_the_secret_with_and_without_its_prefix() -> None:
    for secret in (DEFAULT_SECRET, "whsec_" + DEFAULT_SECRET):
        assert tessera.webhooks.verify(DEFAULT_PAYLOAD, signed_headers(), secret).to_dict()["test"] == 2432232314


def test_the_upstream_signature_vector() -> None:
    # test_sign_function: this id, timestamp and payload under whsec_MfKQ… sign as below.
    headers = {
        "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
        "webhook-timestamp": "1614265330",
        "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    }
    event = tessera.webhooks.verify(DEFAULT_PAYLOAD, headers, "whsec_" + DEFAULT_SECRET, now=1614265330)
    assert event.to_dict() == {"test": 2432232314}


def test_the_payload_must_be_the_raw_body() -> None:
    with pytest.raises(TypeError):
        tessera.webhooks.verify({"test": 1}, signed_headers(), DEFAULT_SECRET)  # type: ignore[arg-type]


# --- RFC 8032 test vectors (section 7.1, TEST 1-3): public key, message, signature ---------------
RFC8032 = [
    (
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
]


@pytest.mark.parametrize(("public", "message", "signature"), RFC8032)
def test_ed25519_verifies_the_rfc_8032_vectors(public: str, message: str, signature: str) -> None:
    key, msg, sig = bytes.fromhex(public), bytes.fromhex(message), bytes.fromhex(signature)
    assert ed25519_verify(key, msg, sig)
    assert not ed25519_verify(key, msg + b"x", sig)
    assert not ed25519_verify(key, msg, sig[:10] + bytes([sig[10] ^ 1]) + sig[11:])
    assert not ed25519_verify(key, msg, sig[:32] + (2**253).to_bytes(32, "little"))  # s >= L
    assert not ed25519_verify(key[:31], msg, sig)


# --- Deliveries the server sends to a receiver of the test's own ---------------------------------


class Receiver:
    """An HTTP server recording what is POSTed to it, answering 204."""

    def __init__(self) -> None:
        received: list[tuple[str, bytes, dict[str, str]]] = []
        self.received = received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                received.append((self.path, body, dict(self.headers.items())))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, path: str, count: int = 1, timeout: float = 30) -> list[tuple[bytes, dict[str, str]]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [(body, headers) for p, body, headers in self.received if p == path]
            if len(found) >= count:
                return found
            time.sleep(0.1)
        raise AssertionError(f"no delivery to {path} within {timeout} s: {self.received}")


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    running = Receiver()
    yield running
    running.server.shutdown()
    running.server.server_close()


def test_a_delivery_the_server_sends_verifies_with_the_endpoint_secret(
    client: Tessera, receiver: Receiver, unique: str
) -> None:
    endpoint = client.webhook_endpoints.create(url=f"{receiver.url}/v1-{unique}", event_types=["contact.created"])
    try:
        assert endpoint.secret.startswith("whsec_") and endpoint.signing_scheme == "v1"
        contact = client.contacts.create(name=f"Webhook {unique}")
        ((body, headers),) = receiver.wait(f"/v1-{unique}")
        event = client.webhooks.verify(body, headers, endpoint.secret)
        assert event.type == "contact.created"
        assert event.data.object["id"] == contact.id
        assert headers["webhook-id"] == event.id
        # The module-level function, the text of the body, an httpx-style mapping: the same answer.
        assert tessera.webhooks.verify(body.decode(), headers, endpoint.secret) == event
        with pytest.raises(WebhookVerificationError):
            client.webhooks.verify(body.replace(b"contact", b"Contact", 1), headers, endpoint.secret)
        with pytest.raises(WebhookVerificationError):
            client.webhooks.verify(body, headers, "whsec_" + base64.b64encode(b"x" * 32).decode())
        assert client.events.retrieve(event.id).to_dict() == event.to_dict()
    finally:
        client.webhook_endpoints.delete(endpoint.id)


def test_after_a_rotation_both_secrets_verify_and_the_header_carries_two_signatures(
    client: Tessera, receiver: Receiver, unique: str
) -> None:
    endpoint = client.webhook_endpoints.create(url=f"{receiver.url}/rotate-{unique}", event_types=["contact.*"])
    try:
        rotated = client.webhook_endpoints.rotate_secret(endpoint.id)
        assert rotated.secret != endpoint.secret and rotated.previous_secret_expires_at is not None
        delivery = client.webhook_endpoints.test(endpoint.id)
        assert delivery.event_type == "webhook_endpoint.test"
        ((body, headers),) = receiver.wait(f"/rotate-{unique}")
        assert len(headers["webhook-signature"].split()) == 2
        for secret in (endpoint.secret, rotated.secret, [rotated.secret, endpoint.secret]):
            assert client.webhooks.verify(body, headers, secret).type == "webhook_endpoint.test"
        assert client.webhook_endpoints.retrieve_secret(endpoint.id).secret == rotated.secret
    finally:
        client.webhook_endpoints.delete(endpoint.id)


def test_a_v1a_delivery_verifies_with_the_ed25519_public_key(client: Tessera, receiver: Receiver, unique: str) -> None:
    endpoint = client.webhook_endpoints.create(
        url=f"{receiver.url}/v1a-{unique}", signing_scheme="v1a", event_types=["invoice.voided"]
    )
    try:
        assert endpoint.secret.startswith("whpk_")
        assert client.webhook_endpoints.update(endpoint.id, description="ed25519").description == "ed25519"
        client.webhook_endpoints.test(endpoint.id)
        ((body, headers),) = receiver.wait(f"/v1a-{unique}")
        assert headers["webhook-signature"].startswith("v1a,")
        event = tessera.webhooks.verify(body, headers, endpoint.secret)
        assert event.type == "webhook_endpoint.test"
        assert event.data.object["id"] == endpoint.id
        with pytest.raises(WebhookVerificationError):
            tessera.webhooks.verify(body + b" ", headers, endpoint.secret)
    finally:
        client.webhook_endpoints.delete(endpoint.id)


def test_a_delivery_and_its_attempts_can_be_read_back(client: Tessera, receiver: Receiver, unique: str) -> None:
    endpoint = client.webhook_endpoints.create(url=f"{receiver.url}/read-{unique}", event_types=["invoice.voided"])
    try:
        queued = client.webhook_endpoints.test(endpoint.id)
        receiver.wait(f"/read-{unique}")
        deadline = time.monotonic() + 10
        while (delivery := client.webhook_deliveries.retrieve(queued.id)).status != "succeeded":
            assert time.monotonic() < deadline, delivery
            time.sleep(0.2)
        attempts = client.webhook_deliveries.list_attempts(queued.id)
        assert attempts.data[0].status_code == 204
        listed = client.webhook_endpoints.list_deliveries(endpoint.id, status="succeeded")
        assert [d.id for d in listed] == [queued.id]
    finally:
        client.webhook_endpoints.delete(endpoint.id)


def test_the_secret_comes_from_the_environment_by_default(monkeypatch: pytest.MonkeyPatch, server: Server) -> None:
    monkeypatch.setenv("TESSERA_WEBHOOK_SECRET", DEFAULT_SECRET)
    assert tessera.webhooks.verify(DEFAULT_PAYLOAD, signed_headers()).to_dict()["test"] == 2432232314
    monkeypatch.delenv("TESSERA_WEBHOOK_SECRET")
    with pytest.raises(TesseraError):
        tessera.webhooks.verify(DEFAULT_PAYLOAD, signed_headers())
