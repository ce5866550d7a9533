"""The base of the generated resource classes: each holds the client it sends its requests through."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._base_client import AsyncAPIClient, SyncAPIClient

__all__ = ["AsyncAPIResource", "SyncAPIResource"]


class SyncAPIResource:
    def __init__(self, client: SyncAPIClient) -> None:
        self._client = client


class AsyncAPIResource:
    def __init__(self, client: AsyncAPIClient) -> None:
        self._client = client
