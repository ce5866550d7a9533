"""One real Tessera server for the whole session, on the embedded store, and clients for it.

The server is ``node --no-node-snapshot bin/tessera.js serve`` from the repository root (as
test/helpers/process.ts starts it for the JS tests), with a fresh ``TESSERA_DATA_DIR``, ``PORT=0``
and ``LOG_LEVEL=warn``. Its first start prints the organization's full-access key and the link
that sets up its first owner (the OAuth tests sign in with it); both are read from its stdout.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tessera import AsyncTessera, Tessera

REPO = Path(os.environ.get("TESSERA_REPO", Path(__file__).resolve().parents[3]))
OPENAPI = REPO / "openapi" / "openapi.json"


@dataclass
class Server:
    url: str
    key: str
    setup_url: str | None
    process: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)

    def log(self) -> str:
        return "".join(self.output)


def _node() -> str:
    node = os.environ.get("TESSERA_NODE") or shutil.which("node")
    if not node:
        pytest.exit("node is needed to run the Tessera server the tests talk to", returncode=2)
    return node


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data_dir = tmp_path_factory.mktemp("tessera-data")
    # The server's own settings only: nothing of the caller's environment points it elsewhere.
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("TESSERA_") and key not in ("DATABASE_URL", "REDIS_URL", "PORT")
    }
    env.update(
        {
            "TESSERA_DATA_DIR": str(data_dir),
            "PORT": "0",
            "LOG_LEVEL": "warn",
            # Webhooks go to a receiver on this machine (http://127.0.0.1:…).
            "TESSERA_ALLOW_PRIVATE_TARGETS": "1",
            "TESSERA_ALLOW_HTTP_TARGETS": "1",
            # One key makes every request of the session.
            "TESSERA_RATE_LIMITS": json.dumps({"free": {"limit": 100000, "window_s": 60}}),
        }
    )
    process = subprocess.Popen(
        [_node(), "--no-node-snapshot", str(REPO / "bin" / "tessera.js"), "serve"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output: list[str] = []
    listening = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line)
            if "listening on" in line:
                listening.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.monotonic() + 60
    while not listening.wait(0.1):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.exit(f"the Tessera server did not start:\n{''.join(output)}", returncode=2)
    text = "".join(output)
    url = re.search(r"listening on (http://\S+)", text)
    key = re.search(r"\b(sk_live_[0-9A-Za-z]+)", text)
    setup = re.search(r"(http://\S+/setup/\S+)", text)
    assert url and key, text
    running = Server(
        url=url.group(1), key=key.group(1), setup_url=setup.group(1) if setup else None, process=process, output=output
    )
    try:
        yield running
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="session")
def client(server: Server) -> Iterator[Tessera]:
    with Tessera(api_key=server.key, base_url=server.url) as tessera:
        yield tessera


@pytest.fixture
async def async_client(server: Server) -> AsyncIterator[AsyncTessera]:
    async with AsyncTessera(api_key=server.key, base_url=server.url) as tessera:
        yield tessera


@pytest.fixture
def unique() -> str:
    """A short token unique to the test, to find its own objects among the session's."""
    return os.urandom(4).hex()
