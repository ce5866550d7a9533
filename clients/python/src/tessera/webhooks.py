"""Verifying the webhooks Tessera sends, per Standard Webhooks (https://www.standardwebhooks.com).

>>> from tessera import webhooks
>>> event = webhooks.verify(request_body_bytes, request_headers, "whsec_…")
>>> event.type, event.data.object["id"]

The signed content is ``{webhook-id}.{webhook-timestamp}.{body}``. A ``whsec_`` secret (signing
scheme ``v1``) checks the ``v1,<base64 HMAC-SHA256>`` signatures; a ``whpk_`` public key (scheme
``v1a``) the ``v1a,<base64 ed25519>`` ones. ``webhook-signature`` may hold several signatures
(during a secret rotation the old and the new one sign): one that verifies is enough. A
``webhook-timestamp`` more than ``tolerance`` seconds (5 minutes) away from now is refused, so a
captured delivery cannot be replayed later.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import time
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from . import _ed25519
from ._exceptions import TesseraError, WebhookVerificationError
from ._generated.models import Event

__all__ = ["DEFAULT_TOLERANCE", "WebhookVerificationError", "Webhooks", "verify"]

DEFAULT_TOLERANCE = 300.0
_SECRET_PREFIX = "whsec_"
_PUBLIC_KEY_PREFIX = "whpk_"
_PRIVATE_KEY_PREFIX = "whsk_"

# A mapping (dict, httpx.Headers, http.server's HTTPMessage, Flask's Headers…) or (name, value) pairs.
HeadersLike = Any


def _lower_headers(headers: HeadersLike) -> dict[str, str]:
    items: Iterable[tuple[str, str]]
    if hasattr(headers, "items"):
        items = headers.items()  # dict, httpx.Headers, http.server's HTTPMessage, Flask's Headers…
    else:
        items = headers
    return {str(name).lower(): str(value) for name, value in items}


def _b64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def _now(now: float | datetime | None) -> float:
    if now is None:
        return time.time()
    if isinstance(now, datetime):
        return now.timestamp()
    return float(now)


def verify(
    payload: bytes | str,
    headers: HeadersLike,
    secret: str | Sequence[str] | None = None,
    *,
    tolerance: float | timedelta = DEFAULT_TOLERANCE,
    now: float | datetime | None = None,
) -> Event:
    """Checks a delivery's signature and timestamp, then returns its event.

    ``payload`` is the raw request body, exactly as received (bytes, or the text it decodes to);
    ``headers`` the request's headers (any mapping, case-insensitive); ``secret`` the endpoint's
    ``whsec_…`` secret or, for a ``v1a`` endpoint, its ``whpk_…`` public key, or several of them
    (default: the ``TESSERA_WEBHOOK_SECRET`` environment variable). Raises
    ``WebhookVerificationError`` when anything does not hold.
    """
    if isinstance(payload, str):
        body = payload.encode()
    elif isinstance(payload, (bytes, bytearray, memoryview)):
        body = bytes(payload)
    else:
        raise TypeError("payload must be the raw request body (bytes or str), not a parsed object")
    if secret is None:
        secret = os.environ.get("TESSERA_WEBHOOK_SECRET")
        if not secret:
            raise TesseraError("no webhook secret: pass secret=... or set TESSERA_WEBHOOK_SECRET")
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets:
        raise TesseraError("no webhook secret given")

    lowered = _lower_headers(headers)
    msg_id = lowered.get("webhook-id")
    timestamp = lowered.get("webhook-timestamp")
    signatures = lowered.get("webhook-signature")
    if not msg_id or not timestamp or not signatures:
        missing = [
            name
            for name, value in (
                ("webhook-id", msg_id),
                ("webhook-timestamp", timestamp),
                ("webhook-signature", signatures),
            )
            if not value
        ]
        raise WebhookVerificationError(f"missing header(s): {', '.join(missing)}")
    try:
        sent_at = int(timestamp)
    except ValueError:
        raise WebhookVerificationError("webhook-timestamp is not a number of seconds") from None
    limit = tolerance.total_seconds() if isinstance(tolerance, timedelta) else float(tolerance)
    current = _now(now)
    if sent_at < current - limit:
        raise WebhookVerificationError("webhook-timestamp is too old")
    if sent_at > current + limit:
        raise WebhookVerificationError("webhook-timestamp is too far in the future")

    signed = f"{msg_id}.{timestamp}.".encode() + body
    offered: list[tuple[str, bytes]] = []
    for entry in signatures.split():
        version, _, value = entry.partition(",")
        decoded = _b64(value)
        if decoded is not None:
            offered.append((version, decoded))

    if not any(_matches(key, signed, offered) for key in secrets):
        raise WebhookVerificationError("no signature matches the secret")
    try:
        data = json.loads(body)
    except ValueError:
        raise WebhookVerificationError("the payload is not JSON") from None
    if not isinstance(data, dict):
        raise WebhookVerificationError("the payload is not a JSON object")
    return Event(data)


def _matches(key: str, signed: bytes, offered: list[tuple[str, bytes]]) -> bool:
    if key.startswith(_PRIVATE_KEY_PREFIX):
        raise TesseraError("that is a whsk_ private key: verify with the endpoint's whpk_ public key")
    if key.startswith(_PUBLIC_KEY_PREFIX):
        public = _b64(key[len(_PUBLIC_KEY_PREFIX) :])
        if public is None or len(public) != 32:
            raise TesseraError("a whpk_ key must hold a base64 32-byte ed25519 public key")
        return any(version == "v1a" and _ed25519.verify(public, signed, sig) for version, sig in offered)
    raw = key[len(_SECRET_PREFIX) :] if key.startswith(_SECRET_PREFIX) else key
    secret = _b64(raw)
    if not secret:
        raise TesseraError("a webhook secret must be whsec_ followed by base64")
    expected = hmac.new(secret, signed, hashlib.sha256).digest()
    # Every offered signature is compared (no early exit on the first mismatch), in constant time.
    found = False
    for version, sig in offered:
        if version == "v1" and hmac.compare_digest(expected, sig):
            found = True
    return found


class Webhooks:
    """``client.webhooks``: verifying deliveries (no request is made)."""

    def verify(
        self,
        payload: bytes | str,
        headers: HeadersLike,
        secret: str | Sequence[str] | None = None,
        *,
        tolerance: float | timedelta = DEFAULT_TOLERANCE,
        now: float | datetime | None = None,
    ) -> Event:
        """Checks a delivery's signature and timestamp, then returns its event (``tessera.webhooks.verify``)."""
        return verify(payload, headers, secret, tolerance=tolerance, now=now)
