"""Pages of a list: ``data`` and ``meta``, and iteration over every item of every page, fetched lazily."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Callable, Generic, TypeVar

from ._base_client import json_object
from ._exceptions import TesseraError
from ._models import BaseModel, model

if TYPE_CHECKING:
    from ._base_client import AsyncAPIClient, Parser, RequestSpec, SyncAPIClient

__all__ = [
    "AsyncCursorPage",
    "AsyncPage",
    "CursorPageMeta",
    "PageMeta",
    "SyncCursorPage",
    "SyncPage",
]

_M = TypeVar("_M", bound=BaseModel)


class PageMeta(BaseModel):
    """Where a page stands: ``total`` items over all pages, this ``page`` (from 1), ``per_page``."""

    total: int
    page: int
    per_page: int


class CursorPageMeta(BaseModel):
    """A cursor page's position: pass ``next_cursor`` as ``cursor`` for the next page (None: the last)."""

    next_cursor: str | None
    limit: int


class _BasePage(BaseModel, Generic[_M]):
    __slots__ = ("_fetch", "_query")

    data: list[_M]
    _fetch: Callable[[dict[str, object]], Any] | None
    _query: dict[str, object]

    def __init__(
        self,
        body: Mapping[str, Any],
        *,
        item: type[_M],
        query: Mapping[str, object],
        fetch: Callable[[dict[str, object]], Any] | None,
    ) -> None:
        super().__init__(body)
        raw = body.get("data")
        self._cache["data"] = [item(entry) for entry in raw] if isinstance(raw, list) else []
        object.__setattr__(self, "_query", dict(query))
        object.__setattr__(self, "_fetch", fetch)

    def _next_query(self) -> dict[str, object] | None:
        raise NotImplementedError

    def has_next_page(self) -> bool:
        """Whether another page follows this one."""
        return self._fetch is not None and self._next_query() is not None


class _NumberedPage(_BasePage[_M]):
    meta: PageMeta
    _converters = {"meta": model(PageMeta)}

    def _next_query(self) -> dict[str, object] | None:
        meta = self.meta
        if meta is None or not self.data:
            return None
        if meta.page * meta.per_page >= meta.total:
            return None
        # The same filters, sort and per_page: only the page moves on.
        return {**self._query, "page": meta.page + 1}


class _CursorPage(_BasePage[_M]):
    meta: CursorPageMeta
    _converters = {"meta": model(CursorPageMeta)}

    def _next_query(self) -> dict[str, object] | None:
        meta = self.meta
        if meta is None or not meta.next_cursor or not self.data:
            return None
        return {**self._query, "cursor": meta.next_cursor}


class _SyncPaging(_BasePage[_M]):
    def get_next_page(self: _SP) -> _SP:
        """The next page (``has_next_page()`` says whether there is one)."""
        query = self._next_query()
        if query is None or self._fetch is None:
            raise TesseraError("there is no next page: check has_next_page() first")
        page: _SP = self._fetch(query)
        return page

    def iter_pages(self: _SP) -> Iterator[_SP]:
        """This page, then each next one, fetched as the loop reaches it."""
        page = self
        while True:
            yield page
            if not page.has_next_page():
                return
            page = page.get_next_page()

    def auto_paging_iter(self) -> Iterator[_M]:
        """Every item of this page and the pages after it, fetching each page as the loop reaches it."""
        for page in self.iter_pages():
            yield from page.data

    def __iter__(self) -> Iterator[_M]:
        return self.auto_paging_iter()


class _AsyncPaging(_BasePage[_M]):
    async def get_next_page(self: _AP) -> _AP:
        """The next page (``has_next_page()`` says whether there is one)."""
        query = self._next_query()
        if query is None or self._fetch is None:
            raise TesseraError("there is no next page: check has_next_page() first")
        page: _AP = await self._fetch(query)
        return page

    async def iter_pages(self: _AP) -> AsyncIterator[_AP]:
        """This page, then each next one, fetched as the loop reaches it."""
        page = self
        while True:
            yield page
            if not page.has_next_page():
                return
            page = await page.get_next_page()

    async def auto_paging_iter(self) -> AsyncIterator[_M]:
        """Every item of this page and the pages after it, fetching each page as the loop reaches it."""
        async for page in self.iter_pages():
            for item in page.data:
                yield item

    def __aiter__(self) -> AsyncIterator[_M]:
        return self.auto_paging_iter()


_SP = TypeVar("_SP", bound=_SyncPaging[Any])
_AP = TypeVar("_AP", bound=_AsyncPaging[Any])


class SyncPage(_SyncPaging[_M], _NumberedPage[_M]):
    """A page of a list (``data``, ``meta``); iterating it goes through every page."""


class AsyncPage(_AsyncPaging[_M], _NumberedPage[_M]):
    """A page of a list (``data``, ``meta``); ``async for`` over it goes through every page."""


class SyncCursorPage(_SyncPaging[_M], _CursorPage[_M]):
    """A page of a cursor list (``data``, ``meta.next_cursor``); iterating it goes through every page."""


class AsyncCursorPage(_AsyncPaging[_M], _CursorPage[_M]):
    """A page of a cursor list (``data``, ``meta.next_cursor``); ``async for`` goes through every page."""


def sync_page(item: type[_M], *, pageable: bool = True) -> Parser[SyncPage[_M]]:
    def parse(response: Any, spec: RequestSpec, client: SyncAPIClient) -> SyncPage[_M]:
        def fetch(query: dict[str, object]) -> SyncPage[_M]:
            return client.request(spec.method, spec.path, query=query, options=spec.options, parse=parse)

        return SyncPage(json_object(response), item=item, query=spec.query, fetch=fetch if pageable else None)

    return parse


def async_page(item: type[_M], *, pageable: bool = True) -> Parser[AsyncPage[_M]]:
    def parse(response: Any, spec: RequestSpec, client: AsyncAPIClient) -> AsyncPage[_M]:
        def fetch(query: dict[str, object]) -> Awaitable[AsyncPage[_M]]:
            return client.request(spec.method, spec.path, query=query, options=spec.options, parse=parse)

        return AsyncPage(json_object(response), item=item, query=spec.query, fetch=fetch if pageable else None)

    return parse


def sync_cursor_page(item: type[_M]) -> Parser[SyncCursorPage[_M]]:
    def parse(response: Any, spec: RequestSpec, client: SyncAPIClient) -> SyncCursorPage[_M]:
        def fetch(query: dict[str, object]) -> SyncCursorPage[_M]:
            return client.request(spec.method, spec.path, query=query, options=spec.options, parse=parse)

        return SyncCursorPage(json_object(response), item=item, query=spec.query, fetch=fetch)

    return parse


def async_cursor_page(item: type[_M]) -> Parser[AsyncCursorPage[_M]]:
    def parse(response: Any, spec: RequestSpec, client: AsyncAPIClient) -> AsyncCursorPage[_M]:
        def fetch(query: dict[str, object]) -> Awaitable[AsyncCursorPage[_M]]:
            return client.request(spec.method, spec.path, query=query, options=spec.options, parse=parse)

        return AsyncCursorPage(json_object(response), item=item, query=spec.query, fetch=fetch)

    return parse
