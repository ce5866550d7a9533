"""Create, read, update, list and delete on every engine's resources, against the real server."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from tessera import ConflictError, NotFoundError, SyncPage, Tessera
from tessera.types import Candidate, Contact, Invoice


def test_me_says_whose_key_it_is(client: Tessera) -> None:
    me = client.me.retrieve()
    assert me.object == "me"
    assert me.organization.name == "default"
    assert me.credential.type == "api_key"
    assert me.credential.scopes == ["*"]


def test_invoices_products_and_payments(client: Tessera, unique: str) -> None:
    product = client.products.create(name=f"Widget {unique}", price="19.90", currency="EUR", sku=f"W-{unique}")
    assert product.price == 19.9 and product.active is True
    assert client.products.update(product.id, active=False).active is False
    assert client.products.list(sku=f"W-{unique}", active=False).data[0].id == product.id

    invoice = client.invoices.create(
        client=f"Acme {unique}",
        currency="EUR",
        due_date=(date.today() + timedelta(days=30)).isoformat(),
        line_items=[
            {"product_id": product.id, "description": "Widgets", "quantity": 2, "unit_price": "19.90"},
            {"description": "Shipping", "quantity": 1, "unit_price": 5},
        ],
        metadata={"order": unique},
    )
    assert isinstance(invoice, Invoice)
    assert invoice.status == "open" and invoice.amount == 44.8
    assert invoice.line_items[0].product_id == product.id and invoice.line_items[1].amount == 5
    assert client.invoices.retrieve(invoice.id) == invoice
    changed = client.invoices.update(invoice.id, description="Two widgets", metadata={"order": ""})
    assert changed.description == "Two widgets" and changed.metadata == {}

    partial = client.payments.create(invoice_id=invoice.id, amount=40, method="bank_transfer", reference="SEPA 1")
    assert client.invoices.retrieve(invoice.id).amount_remaining == pytest.approx(4.8)
    assert client.payments.update(partial.id, reference="SEPA 2").reference == "SEPA 2"
    assert [p.id for p in client.payments.list(invoice_id=invoice.id)] == [partial.id]
    assert client.payments.retrieve(partial.id).amount == 40
    assert client.payments.delete(partial.id) is None
    assert client.invoices.retrieve(invoice.id).amount_remaining == 44.8
    client.payments.create(invoice_id=invoice.id, amount="44.80", method="card")
    paid = client.invoices.retrieve(invoice.id)
    assert paid.status == "paid" and paid.paid_at is not None

    draft = client.invoices.create(client="Draft", currency="EUR", due_date="2031-01-31", amount=1, status="draft")
    assert client.invoices.delete(draft.id) is None
    with pytest.raises(NotFoundError):
        client.invoices.retrieve(draft.id)
    client.products.delete(product.id)


def test_contacts_deals_and_communications(client: Tessera, unique: str) -> None:
    contact = client.contacts.create(
        name="Ada Lovelace", email=f"ada-{unique}@example.com", tags=["priority"], lifecycle_stage="prospect"
    )
    assert isinstance(contact, Contact) and contact.tags == ["priority"]
    assert client.contacts.list(email=f"ADA-{unique}@example.com").data == [contact]
    assert client.contacts.update(contact.id, company="Analytical Engines").company == "Analytical Engines"

    deal = client.deals.create(title=f"Deal {unique}", contact_id=contact.id, value=5000, currency="EUR")
    assert deal.stage == "lead"
    assert client.deals.update(deal.id, stage="proposal").stage == "proposal"
    assert client.deals.update(deal.id, stage="won").closed_at is not None
    with pytest.raises(ConflictError) as raised:
        client.deals.update(deal.id, stage="lead")
    assert raised.value.code == "invalid_state_transition"

    call = client.communications.create(
        contact_id=contact.id,
        deal_id=deal.id,
        channel="call",
        direction="outbound",
        subject="Kick-off",
        occurred_at=datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
    )
    assert client.communications.retrieve(call.id).subject == "Kick-off"
    assert client.communications.update(call.id, body="Went well").body == "Went well"
    listed = client.communications.list(deal_id=deal.id, channel=["call", "meeting"], occurred_after=date(2000, 1, 1))
    assert [c.id for c in listed] == [call.id]
    with pytest.raises(ConflictError):
        client.contacts.delete(contact.id)  # the deal and the call refer to it
    client.communications.delete(call.id)
    client.deals.delete(deal.id)
    client.contacts.delete(contact.id)
    with pytest.raises(NotFoundError):
        client.contacts.retrieve(contact.id)


def test_candidates_and_skills(client: Tessera, unique: str) -> None:
    candidate = client.candidates.create(
        name="Grace Hopper", email=f"grace-{unique}@example.com", position="Staff engineer", source="referral"
    )
    assert isinstance(candidate, Candidate) and candidate.status == "applied"
    assert client.candidates.update(candidate.id, status="screening").status == "screening"
    skill = client.skills.create(candidate_id=candidate.id, name="COBOL", level="expert")
    assert skill.status == "claimed"
    verified = client.skills.update(skill.id, status="verified", verified_by="interview panel")
    assert verified.verified_at is not None
    assert [s.id for s in client.skills.list(candidate_id=candidate.id, level="advanced,expert")] == [skill.id]
    with pytest.raises(ConflictError):
        client.candidates.delete(candidate.id)  # it has a skill
    client.skills.delete(skill.id)
    client.candidates.delete(candidate.id)
    assert client.candidates.list(email=f"grace-{unique}@example.com").meta.total == 0


def test_a_list_goes_through_every_page_lazily_with_per_page_kept(client: Tessera, unique: str) -> None:
    created = [client.contacts.create(name=f"Pager {unique} {n}", tags=[f"pager-{unique}"]).id for n in range(7)]
    page = client.contacts.list(tag=f"pager-{unique}", per_page=3, sort="name")
    assert isinstance(page, SyncPage)
    assert (page.meta.total, page.meta.page, page.meta.per_page, len(page.data)) == (7, 1, 3, 3)
    assert page.has_next_page()

    pages = list(page.iter_pages())
    assert [len(p.data) for p in pages] == [3, 3, 1]
    assert [p.meta.page for p in pages] == [1, 2, 3]
    assert all(p.meta.per_page == 3 for p in pages)
    assert not pages[-1].has_next_page()

    names = [contact.name for contact in page.auto_paging_iter()]
    assert names == sorted(f"Pager {unique} {n}" for n in range(7))
    assert sorted(c.id for c in client.contacts.list(tag=f"pager-{unique}", per_page=2)) == sorted(created)
    # Lazily: breaking out of the loop after the first page's items fetches no more pages.
    seen = 0
    for _ in client.contacts.list(tag=f"pager-{unique}", per_page=3):
        seen += 1
        if seen == 2:
            break
    second = page.get_next_page()
    assert second.meta.page == 2 and second.data[0].name == f"Pager {unique} 3"


def test_the_raw_response_has_the_status_headers_and_the_parsed_object(client: Tessera, unique: str) -> None:
    response = client.contacts.with_raw_response.create(name=f"Raw {unique}", idempotency_key=f"raw-{unique}")
    assert response.status_code == 201
    contact = response.parse()
    assert response.headers["location"] == f"/v1/contacts/{contact.id}"
    assert response.request_id and response.request_id.startswith("req_")
    assert int(response.headers["x-ratelimit-remaining"]) >= 0
    # The same key again: the server replays the stored answer.
    replay = client.contacts.with_raw_response.create(name=f"Raw {unique}", idempotency_key=f"raw-{unique}")
    assert replay.headers.get("idempotent-replayed") == "true"
    assert replay.parse().id == contact.id
    listed = client.sync.interactions.with_raw_response.list(per_page=1)
    assert listed.status_code == 200 and listed.parse().meta.per_page == 1
    assert client.contacts.with_raw_response.delete(contact.id).status_code == 204


def test_extra_headers_query_and_body_reach_the_server(client: Tessera, unique: str) -> None:
    response = client.contacts.with_raw_response.list(
        extra_headers={"X-Request-Id": f"req_custom{unique}"}, extra_query={"q": f"nobody-{unique}"}
    )
    assert response.headers["x-request-id"] == f"req_custom{unique}"
    assert response.parse().meta.total == 0
    contact = client.contacts.create(name=f"Extra {unique}", extra_body={"company": "From extra_body"})
    assert contact.company == "From extra_body"


def test_platform_resources(client: Tessera, unique: str) -> None:
    snapshot = client.intelligence_snapshots.create()
    assert client.intelligence_snapshots.retrieve_latest().id == snapshot.id
    assert client.intelligence_snapshots.retrieve(snapshot.id).finance.outstanding_count >= 0
    assert any(t.type == "invoice.paid" for t in client.event_types.list())

    entry = client.engines.set_state("growth", f"cursor/{unique}", value={"page": 3})
    assert entry.version == 1 and entry.key == f"cursor/{unique}"
    assert client.engines.set_state("growth", f"cursor/{unique}", value=[1], if_match='"1"').version == 2
    assert client.engines.retrieve_state("growth", f"cursor/{unique}").value == [1]
    for n in range(3):
        client.engines.set_state("growth", f"list-{unique}/{n}", value=n)
    page = client.engines.list_state("growth", prefix=f"list-{unique}/", limit=2)
    assert len(page.data) == 2 and page.meta.next_cursor
    assert [e.value for e in page.auto_paging_iter()] == [0, 1, 2]
    client.engines.delete_state("growth", f"cursor/{unique}")
    with pytest.raises(NotFoundError):
        client.engines.retrieve_state("growth", f"cursor/{unique}")

    key = client.api_keys.create(name=f"books {unique}", kind="engine", engines=["finance"], access="read")
    assert key.secret.startswith("sk_live_") and key.scopes == ["finance:read"]
    assert client.api_keys.retrieve(key.id).redacted_secret == key.redacted_secret
    assert client.api_keys.revoke(key.id).revoked_at is not None
    assert key.id in [k.id for k in client.api_keys.list(per_page=100)]
