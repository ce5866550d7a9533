"""AsyncTessera: the same methods, awaited; pages and streams iterated with ``async for``."""

from __future__ import annotations

import asyncio

import pytest

from tessera import AsyncChatStream, AsyncPage, AsyncTessera, NotFoundError, UnprocessableEntityError


async def test_create_list_and_iterate_every_page(async_client: AsyncTessera, unique: str) -> None:
    created = await asyncio.gather(
        *(async_client.products.create(name=f"Async {unique} {n}", price=n + 1, currency="EUR") for n in range(5))
    )
    page = await async_client.products.list(q=f"Async {unique}", per_page=2, sort="price")
    assert isinstance(page, AsyncPage)
    assert (page.meta.total, len(page.data)) == (5, 2)
    prices = [product.price async for product in page.auto_paging_iter()]
    assert prices == [1, 2, 3, 4, 5]
    assert sorted([p.id async for p in page]) == sorted(p.id for p in created)
    pages = [p.meta.page async for p in page.iter_pages()]
    assert pages == [1, 2, 3]
    assert (await page.get_next_page()).meta.page == 2


async def test_errors_are_raised(async_client: AsyncTessera) -> None:
    with pytest.raises(NotFoundError):
        await async_client.deals.retrieve("deal_nope")
    with pytest.raises(UnprocessableEntityError) as raised:
        await async_client.deals.create(title="", value=-1, currency="EUR")
    assert raised.value.errors


async def test_raw_responses_and_options(async_client: AsyncTessera) -> None:
    response = await async_client.me.with_raw_response.retrieve()
    assert response.status_code == 200 and response.parse().object == "me"
    quick = async_client.with_options(timeout=10, max_retries=0)
    assert (await quick.me.retrieve()).organization.name == "default"


async def test_sync_streams_and_approves(async_client: AsyncTessera, unique: str) -> None:
    stream = await async_client.sync.chat(message=f"add a contact Ann Async, ann-{unique}@example.com", stream=True)
    assert isinstance(stream, AsyncChatStream)
    kinds = [event.type async for event in stream]
    assert kinds[0] == "delta" and kinds[-1] == "interaction"
    interaction = await stream.final_interaction()
    action = await async_client.sync.actions.approve(interaction.actions[0].id)
    assert action.status == "completed"


async def test_the_event_stream(async_client: AsyncTessera, unique: str) -> None:
    events = await async_client.events.stream(type="contact.created")
    contact = await async_client.contacts.create(name=f"Async stream {unique}")
    async with events:
        event = await asyncio.wait_for(events.__anext__(), timeout=20)
    assert event.data.object["id"] == contact.id
    assert events.last_event_id == event.id


async def test_invoke_a_function(async_client: AsyncTessera) -> None:
    await async_client.functions.deploy(
        name="async-echo",
        files={"index.ts": "export default { fetch: async (req: Request) => new Response(await req.text()) }"},
    )
    answer = await async_client.functions.invoke("async-echo", body="ping")
    assert answer.text == "ping"
