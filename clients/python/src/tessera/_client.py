"""``Tessera`` and ``AsyncTessera``: the clients."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Callable

import httpx

from ._base_client import DEFAULT_MAX_RETRIES, OAuthTokens
from ._generated.async_resources import AsyncClientResources
from ._generated.resources import SyncClientResources
from ._types import NOT_GIVEN, NotGiven, Timeout
from .webhooks import Webhooks

__all__ = ["AsyncTessera", "Tessera"]


class Tessera(SyncClientResources):
    """The Tessera API, synchronously.

    >>> from tessera import Tessera
    >>> client = Tessera()  # TESSERA_API_KEY, TESSERA_BASE_URL (default http://127.0.0.1:8787)
    >>> for invoice in client.invoices.list(status="overdue"):
    ...     print(invoice.number, invoice.amount_remaining)

    Credentials: ``api_key`` (an ``sk_live_…`` key; default ``TESSERA_API_KEY``), or an OAuth
    ``access_token``; with ``refresh_token``, ``client_id`` (and ``client_secret`` for a
    confidential app), an access token that answers ``401 invalid_token`` is refreshed once, the
    new pair is handed to ``on_tokens``, and the call is sent again.
    """

    webhooks: Webhooks

    def __init__(
        self,
        *,
        api_key: str | None = None,
        access_token: str | None = None,
        refresh_token: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        on_tokens: Callable[[OAuthTokens], object] | None = None,
        base_url: str | httpx.URL | None = None,
        timeout: Timeout | NotGiven = NOT_GIVEN,
        max_retries: int = DEFAULT_MAX_RETRIES,
        default_headers: Mapping[str, str] | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        super().__init__(
            api_key=api_key,
            access_token=access_token,
            refresh_token=refresh_token,
            client_id=client_id,
            client_secret=client_secret,
            on_tokens=on_tokens,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            default_headers=default_headers,
            http_client=http_client,
        )
        self._init_resources()

    def _init_resources(self) -> None:
        super()._init_resources()
        self.webhooks = Webhooks()

    def with_options(
        self,
        *,
        api_key: str | NotGiven = NOT_GIVEN,
        access_token: str | NotGiven = NOT_GIVEN,
        base_url: str | httpx.URL | NotGiven = NOT_GIVEN,
        timeout: Timeout | NotGiven = NOT_GIVEN,
        max_retries: int | NotGiven = NOT_GIVEN,
        default_headers: Mapping[str, str] | NotGiven = NOT_GIVEN,
    ) -> Tessera:
        """A client like this one with some settings changed, sharing its connection pool.

        >>> client.with_options(timeout=5, max_retries=0).invoices.list()
        """
        return self._copy_with(
            api_key=api_key,
            access_token=access_token,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            default_headers=default_headers,
        )

    copy = with_options


class AsyncTessera(AsyncClientResources):
    """The Tessera API, with asyncio: the same methods as ``Tessera``, to be awaited.

    >>> async with AsyncTessera() as client:
    ...     page = await client.invoices.list(status="overdue")
    ...     async for invoice in page:
    ...         print(invoice.number)
    """

    webhooks: Webhooks

    def __init__(
        self,
        *,
        api_key: str | None = None,
        access_token: str | None = None,
        refresh_token: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        on_tokens: Callable[[OAuthTokens], object] | None = None,
        base_url: str | httpx.URL | None = None,
        timeout: Timeout | NotGiven = NOT_GIVEN,
        max_retries: int = DEFAULT_MAX_RETRIES,
        default_headers: Mapping[str, str] | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        super().__init__(
            api_key=api_key,
            access_token=access_token,
            refresh_token=refresh_token,
            client_id=client_id,
            client_secret=client_secret,
            on_tokens=on_tokens,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            default_headers=default_headers,
            http_client=http_client,
        )
        self._init_resources()

    def _init_resources(self) -> None:
        super()._init_resources()
        self.webhooks = Webhooks()

    def with_options(
        self,
        *,
        api_key: str | NotGiven = NOT_GIVEN,
        access_token: str | NotGiven = NOT_GIVEN,
        base_url: str | httpx.URL | NotGiven = NOT_GIVEN,
        timeout: Timeout | NotGiven = NOT_GIVEN,
        max_retries: int | NotGiven = NOT_GIVEN,
        default_headers: Mapping[str, str] | NotGiven = NOT_GIVEN,
    ) -> AsyncTessera:
        """A client like this one with some settings changed, sharing its connection pool."""
        return self._copy_with(
            api_key=api_key,
            access_token=access_token,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            default_headers=default_headers,
        )

    copy = with_options
