import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completion, startOpenAiServer, streamed, type OpenAiServer } from "../fixtures/openai-server.ts";
import { createTestApp, type TestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * SYNC with a model (a scripted OpenAI-compatible server) through the API: the model's tool calls
 * run the organization's own edge functions offered as tools (read-only ones at once, as the
 * caller; the others only on approval), the interaction says which model answered, and a failing
 * provider falls back to the built-in planner and says so.
 */
describe("SYNC API with a model and function tools", () => {
  let t: TestApp;
  let llm: OpenAiServer;
  let org: TestOrg;

  beforeAll(async () => {
    llm = await startOpenAiServer();
    const [kind] = storeKinds();
    t = await createTestApp(await kind!.open(), {
      env: {
        TESSERA_SYNC_LLM_URL: llm.baseUrl,
        TESSERA_SYNC_LLM_MODEL: "scripted-model",
        TESSERA_SYNC_LLM_API_KEY: "sk-model-secret",
      },
    });
    org = await t.newOrg();
    const deploy = async (name: string, source: string, tool: object) => {
      const res = await t.request("POST", "/v1/functions", {
        key: org.key,
        body: { name, files: { "index.ts": source }, tool },
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body.tool).toMatchObject(tool);
    };
    await deploy(
      "stock-level",
      `export default async (req, ctx) => {
         const { sku } = await req.json();
         return Response.json({ sku, in_stock: sku === "CONS-HR" ? 12 : 0, asked_by: ctx.user?.key_id ?? ctx.user?.id ?? null });
       };`,
      {
        description: "How many units of a product are in stock",
        parameters: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
        read_only: true,
      },
    );
    await deploy(
      "reorder",
      `export default async (req) => Response.json({ ordered: await req.json(), by: req.headers.get("tessera-sync") });`,
      {
        description: "Order more units of a product from the supplier",
        parameters: { type: "object", properties: { sku: { type: "string" }, units: { type: "integer" } } },
      },
    );
  });
  afterAll(async () => {
    await llm.close();
    await t.dispose();
    await t.store.dispose();
  });

  it("runs a read-only function tool as the caller and answers with the model", async () => {
    llm.reset();
    llm.script(
      streamed({ toolCalls: [{ name: "function_stock_level", arguments: ['{"sku":', '"CONS-HR"}'] }] }),
      streamed({ content: ["We have ", "12 consulting hours left."] }),
    );
    const res = await t.request("POST", "/v1/sync/chat", {
      key: org.key,
      body: { message: "How many CONS-HR are in stock?" },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      status: "completed",
      planner: "llm",
      model: "scripted-model",
      fallback: null,
      reply: "We have 12 consulting hours left.",
      actions: [],
    });
    const [first, second] = llm.requests;
    expect(first!.headers.authorization).toBe("Bearer sk-model-secret");
    const offered = first!.body.tools!.find((tool) => tool.function.name === "function_stock_level");
    expect(offered!.function.parameters).toEqual({
      type: "object",
      properties: { sku: { type: "string" } },
      required: ["sku"],
    });
    const toolMessage = second!.body.messages.find((message) => message.role === "tool");
    expect(JSON.parse(toolMessage!.content!)).toMatchObject({
      status: 200,
      body: { sku: "CONS-HR", in_stock: 12 },
    });
    expect(JSON.stringify(res.body)).not.toContain("sk-model-secret");
  });

  it("proposes a function tool that is not read-only, and runs it on approval", async () => {
    llm.reset();
    llm.script(
      completion({ toolCalls: [{ name: "function_reorder", arguments: '{"sku":"CONS-HR","units":5}' }] }),
      completion({ content: "I have prepared the order; approve it to send it." }),
    );
    const res = await t.request("POST", "/v1/sync/chat", {
      key: org.key,
      body: { message: "Order 5 more consulting hours" },
    });
    expect(res.body.status).toBe("requires_approval");
    const [action] = res.body.actions;
    expect(action).toMatchObject({
      tool: "function_reorder",
      preview: 'Run the function reorder with {"sku":"CONS-HR","units":5}',
    });
    const approved = await t.request("POST", `/v1/sync/actions/${action.id}/approve`, { key: org.key });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.status).toBe("completed");
    expect(approved.body.result).toMatchObject({
      object: "function_response",
      function: "reorder",
      status: 200,
      body: { ordered: { sku: "CONS-HR", units: 5 }, by: "tool" },
    });
    // A read-only key is offered the read tools only.
    llm.reset();
    llm.script(completion({ content: "Hello." }));
    const readOnly = await org.addKey({ kind: "read_only" });
    const asked = await t.request("POST", "/v1/sync/chat", { key: readOnly, body: { message: "hello" } });
    expect(asked.status).toBe(200);
    const offered = llm.requests[0]!.body.tools!.map((tool) => tool.function.name);
    expect(offered).toContain("function_stock_level");
    expect(offered).toContain("list_records");
    expect(offered).not.toContain("function_reorder");
    expect(offered).not.toContain("mark_invoice_paid");
  });

  it("tells the model its tool arguments nest too deep, instead of failing the chat", async () => {
    llm.reset();
    const deep = `{"sku":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    llm.script(
      completion({ toolCalls: [{ name: "function_reorder", arguments: deep }] }),
      completion({ content: "I could not use those arguments." }),
    );
    const res = await t.request("POST", "/v1/sync/chat", {
      key: org.key,
      body: { message: "Order something odd" },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: "completed", actions: [] });
    const toolMessage = llm.requests[1]!.body.messages.find((message) => message.role === "tool");
    expect(JSON.parse(toolMessage!.content!)).toEqual({
      error: "invalid_request",
      message: "The arguments nest arrays and objects deeper than 64 levels.",
    });
  });

  it("falls back to the built-in planner when the provider fails, and says so", async () => {
    llm.reset();
    llm.script({ kind: "raw", status: 500, body: "upstream exploded" });
    const res = await t.request("POST", "/v1/sync/chat", {
      key: org.key,
      body: { message: "How many invoices do we have?" },
    });
    expect(res.status).toBe(200);
    expect(res.body.planner).toBe("builtin");
    expect(res.body.model).toBeNull();
    expect(res.body.fallback).toMatch(/500/);
    expect(res.body.status).toBe("completed");
    expect(res.body.reply).not.toContain("upstream exploded");
  });
});
