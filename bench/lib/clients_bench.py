"""The Python half of the ``clients`` benchmark (bench/clients.ts), as bench/lib/clients-ts.ts is the TypeScript one.

``python bench/lib/clients_bench.py '<ClientBenchInput as JSON>'``, with httpx installed; the client
library is imported from clients/python/src. Each round measures, one after the other, taking turns
pass by pass and block by block (every other turn in reverse order):

- paging, ``passes`` times: every invoice of the organization, ``per_page`` at a time, through
  ``for invoice in client.invoices.list(per_page=...)`` (``tessera.Tessera``), against a loop of
  ``httpx.Client.get("/v1/invoices", params={"page": n, "per_page": ...})`` + ``.json()`` until
  ``meta`` says the last page;
- creating: ``contacts`` contacts one after the other (in ``blocks`` blocks) through
  ``client.contacts.create()``, against ``httpx.Client.post("/v1/contacts", json=...)`` without and with
  an ``Idempotency-Key`` (the client sends one).

Both read every item the same way (its id into a set, checked for the count). A subject's round is
the sum of its passes or blocks. CPU is
``time.process_time()`` (this process, every thread). Prints one line of JSON: ClientBenchOutput
(bench/lib/client-figures.ts).
"""

from __future__ import annotations

import gc
import json
import os
import platform
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Union

# The library as it is in the tree; no __pycache__ left in it.
sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python" / "src"))

import httpx  # noqa: E402
from tessera import Tessera  # noqa: E402

Round = Union[int, str]  # a round's number, or "warmup"

INPUT: dict[str, Any] = json.loads(sys.argv[1])
URL: str = INPUT["url"]
PER_PAGE: int = INPUT["perPage"]
INVOICES: int = INPUT["invoices"]
SERVER_PID: int = INPUT["serverPid"]
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

http = httpx.Client(base_url=URL, headers={"authorization": f"Bearer {INPUT['key']}"})
client = Tessera(api_key=INPUT["key"], base_url=URL)


def page_raw(_round: Round, _from: int, _count: int) -> tuple[int, list[float]]:
    ids: set[str] = set()
    samples: list[float] = []
    last = time.perf_counter()
    page = 1
    while True:
        response = http.get("/v1/invoices", params={"page": page, "per_page": PER_PAGE})
        if response.status_code != 200:
            raise RuntimeError(f"GET /v1/invoices?page={page} answered {response.status_code}: {response.text}")
        body = response.json()
        now = time.perf_counter()
        samples.append((now - last) * 1000)
        last = now
        for invoice in body["data"]:
            ids.add(invoice["id"])
        meta = body["meta"]
        if not body["data"] or meta["page"] * meta["per_page"] >= meta["total"]:
            break
        page += 1
    return checked_count(ids, "raw httpx"), samples


def page_client(_round: Round, _from: int, _count: int) -> tuple[int, list[float]]:
    ids: set[str] = set()
    samples: list[float] = []
    last = time.perf_counter()
    read = 0
    for invoice in client.invoices.list(per_page=PER_PAGE):
        # The first item of a page: the page has just been fetched and parsed.
        if read % PER_PAGE == 0:
            now = time.perf_counter()
            samples.append((now - last) * 1000)
            last = now
        read += 1
        ids.add(invoice.id)
    return checked_count(ids, "the client"), samples


def checked_count(ids: set[str], who: str) -> int:
    if len(ids) != INVOICES:
        raise RuntimeError(f"{who} paged through {len(ids)} distinct invoices, not {INVOICES}")
    return len(ids)


def contact_of(subject: str, round_: Round, n: int) -> dict[str, str]:
    ident = f"{INPUT['tag']}-{subject}-r{round_}-{n}"
    return {"name": f"Contact {ident}", "email": f"{ident}@bench.example"}


def create_raw(round_: Round, first: int, count: int, keyed: bool) -> tuple[int, list[float]]:
    samples: list[float] = []
    for n in range(first, first + count):
        body = contact_of("raw-key" if keyed else "raw", round_, n)
        started = time.perf_counter()
        headers = {"idempotency-key": f"bench-{uuid.uuid4()}"} if keyed else None
        response = http.post("/v1/contacts", json=body, headers=headers)
        if response.status_code != 201:
            raise RuntimeError(f"POST /v1/contacts answered {response.status_code}: {response.text}")
        contact = response.json()
        samples.append((time.perf_counter() - started) * 1000)
        if contact["email"] != body["email"] or not contact["id"]:
            raise RuntimeError(f"POST /v1/contacts answered {contact}")
    return count, samples


def create_client(round_: Round, first: int, count: int) -> tuple[int, list[float]]:
    samples: list[float] = []
    for n in range(first, first + count):
        body = contact_of("client", round_, n)
        started = time.perf_counter()
        contact = client.contacts.create(name=body["name"], email=body["email"])
        samples.append((time.perf_counter() - started) * 1000)
        if contact.email != body["email"] or not contact.id:
            raise RuntimeError(f"contacts.create answered {contact!r}")
    return count, samples


# One pass (paging) or one block of creates: (round, index of the first contact, contacts).
RUNS: dict[str, Callable[[Round, int, int], tuple[int, list[float]]]] = {
    "paging/raw": page_raw,
    "paging/client": page_client,
    "creating/raw": lambda round_, first, count: create_raw(round_, first, count, False),
    "creating/raw+key": lambda round_, first, count: create_raw(round_, first, count, True),
    "creating/client": create_client,
}


def server_requests() -> int:
    """Requests the server has answered so far, ``/metrics`` itself left out."""
    response = http.get("/metrics", headers={"authorization": f"Bearer {INPUT['metricsToken']}"})
    if response.status_code != 200:
        raise RuntimeError(f"GET /metrics answered {response.status_code}: {response.text}")
    total = 0
    for line in response.text.splitlines():
        if line.startswith("tessera_http_requests_total{") and 'route="/metrics"' not in line:
            total += int(float(line.rsplit(" ", 1)[1]))
    return total


def stat_cpu_s(path: str) -> float | None:
    """utime + stime of a /proc stat file, in seconds (Linux; None elsewhere)."""
    try:
        with open(path) as file:
            fields = file.read().split(") ", 1)[1].split(" ")
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS


def server_cpu() -> tuple[float | None, float | None]:
    return stat_cpu_s(f"/proc/{SERVER_PID}/stat"), stat_cpu_s(f"/proc/{SERVER_PID}/task/{SERVER_PID}/stat")


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest rank, as bench/lib/stats.ts."""
    if not sorted_values:
        return float("nan")
    rank = -(-p * len(sorted_values) // 100)  # ceil
    return sorted_values[min(len(sorted_values) - 1, max(0, int(rank) - 1))]


def new_sum(subject: str, round_: int) -> dict[str, Any]:
    """A subject's round so far: its blocks summed, their samples kept for the percentiles."""
    return {
        "subject": subject,
        "round": round_,
        "blocks": 0,
        "requests": 0,
        "items": 0,
        "wallMs": 0.0,
        "cpuMs": 0.0,
        "serverCpuMs": 0.0,
        "serverMainMs": 0.0,
        "samples": [],
    }


def add_ms(so_far: float | None, after: float | None, before: float | None) -> float | None:
    return None if so_far is None or after is None or before is None else so_far + (after - before) * 1000


def measure(total: dict[str, Any], first: int, count: int) -> None:
    """One pass or block of the subject, added to its round's sum."""
    gc.collect()
    requests_before = server_requests()
    server_before = server_cpu()
    cpu_before = time.process_time()
    started = time.perf_counter()
    items, samples = RUNS[total["subject"]](total["round"], first, count)
    wall_ms = (time.perf_counter() - started) * 1000
    cpu_ms = (time.process_time() - cpu_before) * 1000
    server_after = server_cpu()
    total["requests"] += server_requests() - requests_before
    total["blocks"] += 1
    total["items"] += items
    total["wallMs"] += wall_ms
    total["cpuMs"] += cpu_ms
    total["serverCpuMs"] = add_ms(total["serverCpuMs"], server_after[0], server_before[0])
    total["serverMainMs"] = add_ms(total["serverMainMs"], server_after[1], server_before[1])
    total["samples"].extend(samples)


def order_of_round(subjects: list[str], turn: int) -> list[str]:
    """As given, then reversed, then as given: bench/lib/rounds.ts."""
    return subjects if turn % 2 == 0 else subjects[::-1]


def main() -> None:
    # Untimed: the connection, the server's list cache and idempotency table, alike for all.
    for run in RUNS.values():
        run("warmup", 0, INPUT["warmupContacts"])
    paging = ["paging/raw", "paging/client"]
    creating = ["creating/raw", "creating/raw+key", "creating/client"]
    passes, blocks, contacts = INPUT["passes"], INPUT["blocks"], INPUT["contacts"]
    rounds: list[dict[str, Any]] = []
    for round_ in range(INPUT["rounds"]):
        sums = {subject: new_sum(subject, round_) for subject in paging + creating}
        # Turns (a pass, a block) alternate in order, counted on across rounds.
        for pass_ in range(passes):
            for subject in order_of_round(paging, round_ * passes + pass_):
                measure(sums[subject], 0, 0)
        for block in range(blocks):
            first, end = block * contacts // blocks, (block + 1) * contacts // blocks
            for subject in order_of_round(creating, round_ * blocks + block):
                measure(sums[subject], first, end - first)
        for total in sums.values():
            samples = sorted(total.pop("samples"))
            rounds.append({**total, "medianMs": percentile(samples, 50), "p99Ms": percentile(samples, 99)})
    http.close()
    client.close()
    runtime = f"Python {platform.python_version()}, httpx {httpx.__version__}"
    print(json.dumps({"runtime": runtime, "rounds": rounds}))


if __name__ == "__main__":
    main()
