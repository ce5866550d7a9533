"""A one-file edge function deployed, invoked with every method, and managed."""

from __future__ import annotations

import pytest

from tessera import NotFoundError, Tessera

SOURCE = """
export default {
  async fetch(req: Request, env: Record<string, string>, ctx: any) {
    const url = new URL(req.url);
    const body = req.method === "GET" || req.method === "DELETE" ? null : await req.text();
    if (url.pathname.endsWith("/teapot")) return new Response("short and stout", { status: 418 });
    console.log(`hello ${req.method}`);
    return Response.json({
      method: req.method,
      path: url.pathname,
      query: url.searchParams.get("q"),
      body,
      header: req.headers.get("x-greeting"),
      caller: ctx.user?.key_id ?? null,
      secret: env.GREETING ?? null,
    });
  },
};
"""


@pytest.fixture(scope="module")
def function(client: Tessera) -> str:
    deployed = client.functions.deploy(name="hello-python", files={"index.ts": SOURCE}, metadata={"by": "pytest"})
    assert deployed.name == "hello-python" and deployed.version >= 1
    return deployed.name


def test_invoke_with_each_method_path_body_headers_and_query(client: Tessera, function: str) -> None:
    got = client.functions.invoke(function, path="/greet", query={"q": "1"}, headers={"X-Greeting": "hi"})
    assert got.status_code == 200 and got.ok
    answer = got.json()
    assert answer["method"] == "GET" and answer["path"].endswith("/invoke/greet")
    assert answer["query"] == "1" and answer["header"] == "hi"
    assert answer["caller"] is not None

    posted = client.functions.invoke(function, body={"name": "Ada"})
    assert posted.json()["method"] == "POST" and posted.json()["body"] == '{"name":"Ada"}'
    for method in ("PUT", "PATCH", "DELETE"):
        assert client.functions.invoke(function, method=method, body="text").json()["method"] == method
    raw = client.functions.invoke(function, method="POST", body=b"\x00\x01")
    assert raw.json()["body"] == "\x00\x01"


def test_the_functions_own_error_status_is_returned_not_raised(client: Tessera, function: str) -> None:
    teapot = client.functions.invoke(function, path="teapot")
    assert teapot.status_code == 418 and not teapot.ok
    assert teapot.text == "short and stout"


def test_a_missing_function_raises(client: Tessera) -> None:
    with pytest.raises(NotFoundError):
        client.functions.invoke("no-such-function")


def test_manage_the_function(client: Tessera, function: str) -> None:
    client.functions.update_secrets(function, {"GREETING": "hello"})
    assert [s.name for s in client.functions.list_secrets(function).data] == ["GREETING"]
    assert client.functions.invoke(function).json()["secret"] == "hello"
    client.functions.delete_secret(function, "GREETING")
    assert client.functions.list_secrets(function).data == []

    assert client.functions.retrieve(function).metadata == {"by": "pytest"}
    assert function in [f.name for f in client.functions.list()]
    deployments = client.functions.list_deployments(function)
    assert client.functions.retrieve_deployment(function, str(deployments.data[0].version)).sha256
    logs = client.functions.list_logs(function, level="log")
    assert any("hello" in line.message for line in logs)
