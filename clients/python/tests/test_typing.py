"""A user's script type-checks under ``mypy --strict`` against the package; a wrong field name does not."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tessera

GOOD = """
from __future__ import annotations

import asyncio
from datetime import date

from tessera import APIError, AsyncTessera, RateLimitError, Tessera, webhooks
from tessera.types import ChatDeltaEvent, Invoice, InvoiceCreateLineItemParam, SyncInteraction


def report(client: Tessera) -> float:
    total = 0.0
    for invoice in client.invoices.list(status=["open", "overdue"], due_before=date(2030, 1, 1), per_page=50):
        total += invoice.amount_remaining
        if invoice.contact_id is not None:
            print(invoice.contact_id.upper())
    page = client.invoices.list(status="overdue")
    print(page.meta.total, page.data[0].line_items[0].unit_price if page.data else None)
    item: InvoiceCreateLineItemParam = {"quantity": 1, "unit_price": "9.90", "description": "Widget"}
    created: Invoice = client.invoices.create(client="Acme", currency="EUR", due_date="2030-01-31", line_items=[item])
    raw = client.invoices.with_raw_response.retrieve(created.id)
    print(raw.status_code, raw.headers.get("x-request-id"), raw.parse().number)
    asked: SyncInteraction = client.sync.chat(message="Which invoices are overdue?")
    for action in asked.actions:
        client.sync.actions.approve(action.id)
    with client.sync.chat(message="How many deals?", stream=True) as stream:
        for event in stream:
            if isinstance(event, ChatDeltaEvent):
                print(event.text, end="")
        print(stream.final_interaction().reply)
    answer = client.functions.invoke("hello", method="POST", path="/x", body={"a": 1}, headers={"X-A": "b"})
    print(answer.status_code, answer.json())
    for change in client.events.stream(type="invoice.*"):
        print(change.type, change.data.object.get("id"))
        break
    try:
        client.contacts.delete("con_x")
    except RateLimitError as error:
        print(error.retry_after, error.reset_at)
    except APIError as error:
        print(error.status_code, error.code, error.request_id, [e.param for e in error.errors])
    verified = webhooks.verify(b"{}", {"webhook-id": "x"}, "whsec_abc")
    print(verified.type)
    me = client.me.retrieve()
    print(me.organization.plan, me.credential.scopes)
    return total


async def main() -> None:
    async with AsyncTessera() as client:
        page = await client.contacts.list(lifecycle_stage="customer")
        async for contact in page.auto_paging_iter():
            print(contact.name, contact.email or "")
        stream = await client.sync.chat(message="hi", stream=True)
        print((await stream.final_interaction()).status)


with Tessera() as client:
    report(client.with_options(timeout=5, max_retries=0))
asyncio.run(main())
"""

BAD = """
from tessera import Tessera

client = Tessera()
invoice = client.invoices.retrieve("inv_1")
print(invoice.amout)
client.invoices.create(client="Acme", currency="EUR")
client.invoices.list(status=3)
client.contacts.create(name="Ada", lifecycle_stage="vip")
"""


def mypy(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(source))
    env = dict(os.environ)
    package_root = Path(tessera.__file__).resolve().parents[1]
    if "site-packages" not in str(package_root):
        env["MYPYPATH"] = str(package_root)  # running from the source tree, not an installed wheel
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path.parent / "mypy-cache"), str(script)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )


@pytest.fixture
def checked(tmp_path: Path) -> Path:
    pytest.importorskip("mypy")
    return tmp_path


def test_a_users_script_passes_mypy_strict(checked: Path) -> None:
    result = mypy(checked, GOOD)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mistakes_fail_mypy(checked: Path) -> None:
    result = mypy(checked, BAD)
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    assert '"Invoice" has no attribute "amout"' in out
    assert 'Missing named argument "due_date"' in out
    assert 'Argument "status" to "list" of "InvoicesResource" has incompatible type "int"' in out
    assert 'Argument "lifecycle_stage" to "create" of "ContactsResource"' in out
    assert out.count("error:") == 4, out
