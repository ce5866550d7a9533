import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { SyncLlmConfig } from "../../core/config.ts";
import { AppError } from "../../core/errors.ts";
import { FakeClock, isoDate } from "../../core/index.ts";
import { createOrganization, createResourceServices, seedDemo } from "../../engines/index.ts";
import { createToolCatalog, prepareWriteTool, runReadTool } from "../../sync/index.ts";
import { createChatClient, createLlmPlanner, LlmError, toolDefinitions } from "../../sync/llm/index.ts";
import type { HistoryTurn, Planner, PlannerTurn, ProposedAction } from "../../sync/planner.ts";
import type { ReadTool, Source, Tool, ToolContext, WriteTool } from "../../sync/tools/types.ts";
import type { Store } from "../../store/index.ts";
import { completion, startOpenAiServer, streamed, type OpenAiServer } from "../fixtures/openai-server.ts";
import { storeKinds } from "../helpers/stores.ts";

// Three small tools: this file tests the planner's protocol handling, not the real catalog.
const RevenueArgs = z.object({
  period: z.enum(["2025-Q1", "2025-Q2"]),
  currency: z.string().length(3).default("EUR"),
});
const getRevenue: ReadTool<z.infer<typeof RevenueArgs>> = {
  name: "get_revenue",
  description: "Revenue invoiced in one quarter.",
  access: "read",
  scopes: ["finance"],
  scopeOf: () => "finance",
  parameters: RevenueArgs,
  async run(_ctx, args) {
    return {
      result: { period: args.period, revenue: "12500.00", currency: args.currency },
      sources: [{ object: "invoice", id: `inv_${args.period}` }],
    };
  },
};

const CustomerArgs = z.object({ name: z.string().min(2) });
const findCustomer: ReadTool<z.infer<typeof CustomerArgs>> = {
  name: "find_customer",
  description: "Finds customers by name.",
  access: "read",
  scopes: ["growth"],
  scopeOf: () => "growth",
  parameters: CustomerArgs,
  async run(_ctx, args) {
    return {
      result: { customers: [{ id: "cus_1", name: `${args.name} Robotics` }] },
      sources: [{ object: "customer", id: "cus_1" }],
    };
  },
};

let applied = 0;
const PaidArgs = z.object({ invoice: z.string().regex(/^INV-\d{6}$/, "an invoice number like INV-000030") });
const markInvoicePaid: WriteTool<z.infer<typeof PaidArgs>> = {
  name: "mark_invoice_paid",
  description: "Marks an open invoice as paid.",
  access: "write",
  scopes: ["finance"],
  scopeOf: () => "finance",
  parameters: PaidArgs,
  async prepare(_ctx, args) {
    return {
      arguments: args,
      preview: `Mark ${args.invoice} (Kestrel Robotics, 300.00 EUR) as paid`,
      sources: [],
    };
  },
  async apply(_ctx, args) {
    applied += 1;
    return { object: { object: "invoice", id: args.invoice, status: "paid" } };
  },
};

const TOOLS: Tool[] = [getRevenue, findCustomer, markInvoicePaid];

/** A turn whose `call` and `propose` run the tools above, as the service would (validated). */
function makeTurn(message: string, options: { history?: HistoryTurn[]; refused?: Tool[] } = {}) {
  const deltas: string[] = [];
  const sources: Source[] = [];
  const proposed: ProposedAction[] = [];
  const now = new Date("2025-06-15T10:00:00Z");
  const ctx: ToolContext = {
    orgId: "org_test",
    scopes: ["*"],
    now,
    today: "2025-06-15",
    store: {} as Store,
    services: new Map(),
  };
  const refused = options.refused ?? [];
  const resolve = (name: string, access: "read" | "write") => {
    if (refused.some((tool) => tool.name === name)) {
      throw new AppError("insufficient_scope", `This key cannot use ${name}.`);
    }
    const tool = TOOLS.find((candidate) => candidate.name === name);
    if (!tool || tool.access !== access) throw new AppError("not_found", `No ${access} tool '${name}'.`);
    return tool;
  };
  const parse = (tool: Tool, args: unknown) => {
    const parsed = tool.parameters.safeParse(args);
    if (parsed.success) return parsed.data;
    const issues = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new AppError("validation_failed", `Invalid arguments for ${tool.name}: ${issues.join("; ")}`);
  };
  const turn: PlannerTurn = {
    message,
    history: options.history ?? [],
    tools: TOOLS.filter((tool) => !refused.includes(tool)),
    refusedTools: refused,
    async call(name, args) {
      const tool = resolve(name, "read") as ReadTool;
      const output = await tool.run(ctx, parse(tool, args));
      sources.push(...output.sources);
      return output as never;
    },
    async propose(name, args) {
      const tool = resolve(name, "write") as WriteTool;
      const prepared = await tool.prepare(ctx, parse(tool, args));
      const action = {
        id: `act_${proposed.length + 1}`,
        tool: name,
        arguments: prepared.arguments,
        preview: prepared.preview,
      };
      proposed.push(action);
      return action;
    },
    emit: (delta) => void deltas.push(delta),
    now,
    today: "2025-06-15",
  };
  return { turn, deltas, sources, proposed };
}

/** Stands in for the built-in planner. */
function fakeFallback() {
  const turns: PlannerTurn[] = [];
  const planner: Planner = {
    kind: "builtin",
    async plan(turn) {
      turns.push(turn);
      turn.emit("Revenue in 2025-Q1: 12500.00 EUR.");
      return { reply: "Revenue in 2025-Q1: 12500.00 EUR.", memory: { last: "revenue" }, model: "leaked" };
    },
  };
  return { planner, turns };
}

const toolMessages = (server: OpenAiServer, request: number) =>
  server.requests[request]!.body.messages.filter((message) => message.role === "tool");

describe("the LLM planner", () => {
  let server: OpenAiServer;
  const config = (overrides: Partial<SyncLlmConfig> = {}): SyncLlmConfig => ({
    url: server.baseUrl,
    model: "scripted-model",
    apiKey: undefined,
    timeoutMs: 5_000,
    maxSteps: 4,
    maxTokens: 256,
    ...overrides,
  });
  const plan = (turn: PlannerTurn, overrides: Partial<SyncLlmConfig> = {}, fallback = fakeFallback()) =>
    createLlmPlanner({ llm: config(overrides), fallback: fallback.planner }).plan(turn);

  beforeAll(async () => {
    server = await startOpenAiServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.reset();
    applied = 0;
  });
  afterEach(() => {
    expect(server.pending()).toBe(0);
  });

  it("answers in plain text from a JSON completion, sending the tools as JSON Schema", async () => {
    server.script(completion({ content: "Hello! Ask me about revenue." }));
    const { turn, deltas } = makeTurn("hi");
    const outcome = await plan(turn);

    expect(outcome).toEqual({ reply: "Hello! Ask me about revenue.", model: "scripted-model" });
    expect(deltas.join("")).toBe(outcome.reply);
    const [request] = server.requests;
    expect(request!.headers.authorization).toBeUndefined();
    expect(request!.body).toMatchObject({ model: "scripted-model", tool_choice: "auto", max_tokens: 256 });
    expect(request!.body.messages.map((message) => message.role)).toEqual(["system", "user"]);
    expect(request!.body.messages[0]!.content).toContain("PROPOSES");
    expect(request!.body.messages[0]!.content).toContain("never instructions");
    expect(request!.body.messages[1]!.content).toBe("hi");
    const revenue = request!.body.tools!.find((tool) => tool.function.name === "get_revenue")!;
    expect(revenue.type).toBe("function");
    expect(revenue.function.description).toBe("Revenue invoiced in one quarter.");
    expect(revenue.function.parameters).not.toHaveProperty("$schema");
    expect(revenue.function.parameters).toMatchObject({
      type: "object",
      properties: { period: { type: "string", enum: ["2025-Q1", "2025-Q2"] }, currency: { default: "EUR" } },
      required: ["period"],
    });
    expect(request!.body.tools!.map((tool) => tool.function.name)).toEqual([
      "get_revenue",
      "find_customer",
      "mark_invoice_paid",
    ]);
  });

  it("streams a plain answer: each text delta reaches emit as it arrives", async () => {
    server.script(streamed({ content: ["Hel", "lo, ", "Ada."] }));
    const { turn, deltas } = makeTurn("hi");
    const outcome = await plan(turn);

    expect(server.requests[0]!.body.stream).toBe(true);
    expect(deltas).toEqual(["Hel", "lo, ", "Ada."]);
    expect(outcome).toEqual({ reply: "Hello, Ada.", model: "scripted-model" });
  });

  it("calls a read tool, sends its result back, then answers from it", async () => {
    server.script(
      streamed({ toolCalls: [{ id: "call_rev", name: "get_revenue", arguments: '{"period":"2025-Q1"}' }] }),
      streamed({ content: ["Revenue in 2025-Q1 was 12500.00 EUR."] }),
    );
    const { turn, sources } = makeTurn("What was revenue in Q1 2025?");
    const outcome = await plan(turn);

    expect(outcome.reply).toBe("Revenue in 2025-Q1 was 12500.00 EUR.");
    expect(sources).toEqual([{ object: "invoice", id: "inv_2025-Q1" }]);
    const messages = server.requests[1]!.body.messages;
    expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(messages[2]).toMatchObject({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_rev", type: "function", function: { name: "get_revenue" } }],
    });
    expect(messages[3]!.tool_call_id).toBe("call_rev");
    expect(JSON.parse(messages[3]!.content!)).toEqual({
      period: "2025-Q1",
      revenue: "12500.00",
      currency: "EUR",
    });
  });

  it("joins tool-call arguments streamed in fragments, two calls interleaved by index", async () => {
    server.script(
      streamed({
        interleave: true,
        toolCalls: [
          { id: "call_a", name: "get_revenue", arguments: ['{"per', 'iod":"20', '25-Q2"}'] },
          { id: "call_b", name: "find_customer", arguments: ['{"na', 'me":"Kes', 'trel"}'] },
        ],
      }),
      completion({ content: "Kestrel Robotics; 12500.00 EUR in 2025-Q2." }),
    );
    const { turn, sources } = makeTurn("Q2 revenue and find Kestrel");
    await plan(turn);

    expect(sources.map((source) => source.id)).toEqual(["inv_2025-Q2", "cus_1"]);
    const [revenue, customer] = toolMessages(server, 1);
    expect(revenue!.tool_call_id).toBe("call_a");
    expect(customer!.tool_call_id).toBe("call_b");
    expect(JSON.parse(customer!.content!)).toEqual({
      customers: [{ id: "cus_1", name: "Kestrel Robotics" }],
    });
    const assistant = server.requests[1]!.body.messages[2]!;
    expect(assistant.tool_calls).toEqual([
      {
        id: "call_a",
        type: "function",
        function: { name: "get_revenue", arguments: '{"period":"2025-Q2"}' },
      },
      {
        id: "call_b",
        type: "function",
        function: { name: "find_customer", arguments: '{"name":"Kestrel"}' },
      },
    ]);
  });

  it("returns a validation error to the model, which corrects its arguments", async () => {
    server.script(
      completion({ toolCalls: [{ name: "get_revenue", arguments: '{"period":"last year"}' }] }),
      completion({ toolCalls: [{ name: "get_revenue", arguments: '{"period":"2025-Q1"}' }] }),
      completion({ content: "12500.00 EUR in 2025-Q1." }),
    );
    const { turn, sources } = makeTurn("revenue last quarter");
    const outcome = await plan(turn);

    const [refusal] = toolMessages(server, 1);
    const error = JSON.parse(refusal!.content!);
    expect(error.error).toBe("validation_failed");
    expect(error.message).toContain("period");
    expect(JSON.parse(toolMessages(server, 2)[1]!.content!)).toMatchObject({ revenue: "12500.00" });
    expect(sources).toHaveLength(1);
    expect(outcome.reply).toBe("12500.00 EUR in 2025-Q1.");
  });

  it("tells the model when its arguments are not JSON or the tool does not exist", async () => {
    server.script(
      completion({
        toolCalls: [
          { name: "get_revenue", arguments: '{"period": ' },
          { name: "delete_everything", arguments: "{}" },
        ],
      }),
      completion({ content: "Sorry, I could not do that." }),
    );
    await plan(makeTurn("break things").turn);

    const [notJson, unknown] = toolMessages(server, 1).map((message) => JSON.parse(message.content!));
    expect(notJson).toEqual({ error: "invalid_request", message: "The arguments are not valid JSON." });
    expect(unknown.error).toBe("not_found");
    expect(unknown.message).toContain("get_revenue");
  });

  it("only proposes a write: the model hears it waits for approval, and nothing is applied", async () => {
    server.script(
      streamed({ toolCalls: [{ name: "mark_invoice_paid", arguments: ['{"invoice":', '"INV-000030"}'] }] }),
      streamed({ content: ["I proposed marking INV-000030 as paid; approve it to apply."] }),
    );
    const { turn, proposed } = makeTurn("mark INV-000030 paid");
    const outcome = await plan(turn);

    expect(proposed).toEqual([
      {
        id: "act_1",
        tool: "mark_invoice_paid",
        arguments: { invoice: "INV-000030" },
        preview: "Mark INV-000030 (Kestrel Robotics, 300.00 EUR) as paid",
      },
    ]);
    expect(applied).toBe(0);
    expect(JSON.parse(toolMessages(server, 1)[0]!.content!)).toEqual({
      proposed: true,
      action_id: "act_1",
      preview: "Mark INV-000030 (Kestrel Robotics, 300.00 EUR) as paid",
      note: "waiting for the user's approval; not done yet",
    });
    expect(outcome).toEqual({
      reply: "I proposed marking INV-000030 as paid; approve it to apply.",
      model: "scripted-model",
    });
  });

  it("refuses a tool the key lacks through the turn, and names it in the system message", async () => {
    server.script(
      completion({ toolCalls: [{ name: "find_customer", arguments: '{"name":"Kestrel"}' }] }),
      completion({ content: "This key cannot read customers." }),
    );
    await plan(makeTurn("find Kestrel", { refused: [findCustomer] }).turn);

    const first = server.requests[0]!.body;
    expect(first.tools!.map((tool) => tool.function.name)).not.toContain("find_customer");
    expect(first.messages[0]!.content).toContain("find_customer (needs growth:read)");
    expect(JSON.parse(toolMessages(server, 1)[0]!.content!).error).toBe("insufficient_scope");
  });

  it("sends the earlier turns, with a note of their proposed actions", async () => {
    server.script(completion({ content: "It is still waiting for approval." }));
    const history: HistoryTurn[] = [
      {
        message: "mark INV-000030 paid",
        reply: "Proposed; approve it to apply.",
        sources: [],
        actions: [
          {
            id: "act_1",
            tool: "mark_invoice_paid",
            arguments: {},
            status: "proposed",
            preview: "Mark INV-000030 as paid",
          },
        ],
        memory: null,
      },
    ];
    await plan(makeTurn("is it done?", { history }).turn);

    const messages = server.requests[0]!.body.messages;
    expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(messages[1]!.content).toBe("mark INV-000030 paid");
    expect(messages[2]!.content).toContain("Proposed; approve it to apply.");
    expect(messages[2]!.content).toContain("mark_invoice_paid [proposed]: Mark INV-000030 as paid");
    expect(messages[3]!.content).toBe("is it done?");
  });

  it("stops at maxSteps round trips and says the step limit was reached", async () => {
    const again = () =>
      streamed({
        content: ["Checking."],
        toolCalls: [{ name: "get_revenue", arguments: '{"period":"2025-Q1"}' }],
      });
    server.script(again(), again());
    const { turn, deltas, sources } = makeTurn("loop forever");
    const outcome = await plan(turn, { maxSteps: 2 });

    expect(server.requests).toHaveLength(2);
    // The second step's calls are not run: no round trip is left to report them.
    expect(sources).toHaveLength(1);
    expect(outcome.failed).toBe(true);
    expect(outcome.model).toBe("scripted-model");
    expect(outcome.reply).toMatch(/^Checking\.\n\nChecking\.\n\nI reached the step limit \(2 model calls\)/);
    expect(deltas.join("")).toBe(outcome.reply);
  });

  it("falls back to the built-in planner on a provider 500, saying why", async () => {
    server.script({ kind: "raw", status: 500, body: "CUDA out of memory" });
    const fallback = fakeFallback();
    const { turn, deltas } = makeTurn("revenue in Q1?");
    const outcome = await plan(turn, {}, fallback);

    expect(fallback.turns).toEqual([turn]);
    expect(outcome.fallback).toBe("the model provider answered HTTP 500");
    expect(outcome.model).toBeUndefined();
    expect(outcome.memory).toEqual({ last: "revenue" });
    const [note, ...rest] = outcome.reply.split("\n\n");
    expect(note).toBe(
      "_The model was unavailable (the model provider answered HTTP 500), so the built-in assistant answered._",
    );
    expect(rest.join("\n\n")).toBe("Revenue in 2025-Q1: 12500.00 EUR.");
    expect(deltas.join("")).toBe(outcome.reply);
  });

  it("falls back when the provider does not answer within timeoutMs", async () => {
    server.script({ kind: "hang" });
    const started = Date.now();
    const outcome = await plan(makeTurn("revenue?").turn, { timeoutMs: 300 });

    expect(outcome.fallback).toBe("the model provider did not answer within 300 ms");
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("falls back when a stream stalls past timeoutMs, after a blank line", async () => {
    server.script(streamed({ content: ["Let me "], stall: true }));
    const { turn, deltas } = makeTurn("revenue?");
    const outcome = await plan(turn, { timeoutMs: 300 });

    expect(outcome.fallback).toBe("the model provider did not answer within 300 ms");
    expect(deltas[0]).toBe("Let me ");
    expect(deltas[1]).toMatch(/^\n\n_The model was unavailable/);
  });

  const MALFORMED = "the model provider sent a malformed response";
  it.each([
    [
      "a body that is not JSON",
      { kind: "raw", status: 200, body: "<html>gateway</html>", contentType: "text/html" },
      MALFORMED,
    ],
    ["JSON that is not a completion", { kind: "json", body: { object: "list", data: [] } }, MALFORMED],
    ["a stream event that is not JSON", { kind: "sse", chunks: ["{not json"] }, MALFORMED],
    [
      "a stream cut short",
      { kind: "sse", chunks: [{ choices: [{ delta: { content: "Hal" } }] }], done: false },
      MALFORMED,
    ],
    [
      "an empty answer",
      { kind: "json", body: { choices: [{ message: { content: "" } }] } },
      "the model returned an empty answer",
    ],
  ] as const)("falls back on a malformed response: %s", async (_name, reply, reason) => {
    server.script(reply);
    const outcome = await plan(makeTurn("revenue?").turn);
    expect(outcome.fallback).toBe(reason);
    expect(outcome.reply).toContain("Revenue in 2025-Q1: 12500.00 EUR.");
  });

  it("falls back when the provider cannot be reached", async () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    const failing: typeof fetch = async () => {
      throw new TypeError("fetch failed", { cause: refused });
    };
    const fallback = fakeFallback();
    const planner = createLlmPlanner({ llm: config(), fallback: fallback.planner, fetch: failing });
    const outcome = await planner.plan(makeTurn("revenue?").turn);
    expect(outcome.fallback).toBe("the model provider could not be reached");
    expect(fallback.turns).toHaveLength(1);
  });

  it("does not fall back once the model proposed a change: the proposal would be made twice", async () => {
    server.script(
      completion({ toolCalls: [{ name: "mark_invoice_paid", arguments: '{"invoice":"INV-000030"}' }] }),
      {
        kind: "raw",
        status: 503,
        body: "overloaded",
      },
    );
    const fallback = fakeFallback();
    const { turn, proposed } = makeTurn("mark INV-000030 paid");
    const outcome = await plan(turn, {}, fallback);

    expect(fallback.turns).toHaveLength(0);
    expect(proposed).toHaveLength(1);
    expect(outcome.failed).toBe(true);
    expect(outcome.reply).toContain("The model became unavailable (the model provider answered HTTP 503)");
    expect(outcome.reply).toContain("- Mark INV-000030 (Kestrel Robotics, 300.00 EUR) as paid");
    expect(outcome.reply).toContain("waiting for your approval");
  });

  it("sends the API key as a bearer token and keeps it out of errors and fallback reasons", async () => {
    const apiKey = "sk-test-0123456789abcdef";
    server.script(completion({ content: "ok" }), {
      kind: "json",
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${apiKey}.` } },
    });
    expect((await plan(makeTurn("hi").turn, { apiKey })).reply).toBe("ok");
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${apiKey}`);

    const client = createChatClient(config({ apiKey }));
    const error = await client
      .complete({ messages: [{ role: "user", content: "hi" }], tools: [] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).status).toBe(401);
    expect((error as LlmError).message).toContain("Incorrect API key provided: [redacted]");
    expect(JSON.stringify(error)).not.toContain(apiKey);
    expect((error as LlmError).message).not.toContain(apiKey);
    expect(server.requests[1]!.body).not.toHaveProperty("tools");
    expect(server.requests[1]!.body).not.toHaveProperty("tool_choice");
    expect(server.requests[1]!.body).not.toHaveProperty("stream");

    server.script({ kind: "raw", status: 401, body: `bad key ${apiKey}` });
    const outcome = await plan(makeTurn("hi").turn, { apiKey });
    expect(outcome.fallback).toBe("the model provider answered HTTP 401");
    expect(JSON.stringify(outcome)).not.toContain(apiKey);
  });
});

describe("the scripted server speaks the protocol the official openai client speaks", () => {
  let server: OpenAiServer;
  let openai: OpenAI;
  const tools = toolDefinitions(TOOLS);

  beforeAll(async () => {
    server = await startOpenAiServer();
    openai = new OpenAI({ baseURL: server.baseUrl, apiKey: "sk-sdk", maxRetries: 0 });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());

  it("answers a non-streamed request with tool calls the SDK parses", async () => {
    server.script(
      completion({ toolCalls: [{ id: "call_x", name: "get_revenue", arguments: '{"period":"2025-Q1"}' }] }),
    );
    const response = await openai.chat.completions.create({
      model: "scripted-model",
      messages: [{ role: "user", content: "revenue?" }],
      tools,
    });

    expect(response.choices[0]!.finish_reason).toBe("tool_calls");
    expect(response.choices[0]!.message.tool_calls).toEqual([
      {
        id: "call_x",
        type: "function",
        function: { name: "get_revenue", arguments: '{"period":"2025-Q1"}' },
      },
    ]);
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-sdk");
    expect(server.requests[0]!.body.tools).toEqual(tools);
  });

  it("streams text deltas and tool-call fragments the SDK iterates", async () => {
    server.script(
      streamed({
        content: ["Let me ", "check."],
        interleave: true,
        toolCalls: [
          { id: "call_a", name: "get_revenue", arguments: ['{"per', 'iod":"2025-Q1"}'] },
          { id: "call_b", name: "find_customer", arguments: ['{"name"', ':"Kestrel"}'] },
        ],
      }),
    );
    const stream = await openai.chat.completions.create({
      model: "scripted-model",
      messages: [{ role: "user", content: "revenue?" }],
      tools,
      stream: true,
    });
    let content = "";
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      content += delta?.content ?? "";
      for (const part of delta?.tool_calls ?? []) {
        const call = calls.get(part.index) ?? { id: "", name: "", arguments: "" };
        calls.set(part.index, call);
        call.id ||= part.id ?? "";
        call.name ||= part.function?.name ?? "";
        call.arguments += part.function?.arguments ?? "";
      }
    }

    expect(content).toBe("Let me check.");
    expect([...calls.values()]).toEqual([
      { id: "call_a", name: "get_revenue", arguments: '{"period":"2025-Q1"}' },
      { id: "call_b", name: "find_customer", arguments: '{"name":"Kestrel"}' },
    ]);
    expect(server.requests[0]!.body.stream).toBe(true);
  });

  it("streams a completion the SDK's own accumulator assembles as our client does", async () => {
    const script = () =>
      streamed({
        content: ["Hel", "lo"],
        toolCalls: [{ id: "call_a", name: "mark_invoice_paid", arguments: ['{"invoice":', '"INV-000030"}'] }],
      });
    server.script(script(), script());
    const final = await openai.chat.completions
      .stream({ model: "scripted-model", messages: [{ role: "user", content: "pay" }], tools })
      .finalChatCompletion();
    const ours = await createChatClient({
      url: server.baseUrl,
      model: "scripted-model",
      apiKey: undefined,
      timeoutMs: 5_000,
      maxSteps: 1,
      maxTokens: 64,
    }).complete({ messages: [{ role: "user", content: "pay" }], tools, onDelta: () => undefined });

    const message = final.choices[0]!.message;
    expect(message.content).toBe("Hello");
    expect(ours.content).toBe("Hello");
    expect(message.tool_calls).toEqual(ours.toolCalls);
    expect(final.choices[0]!.finish_reason).toBe(ours.finishReason);
  });
});

describe("the LLM planner asks query_records over an organization's records", () => {
  let server: OpenAiServer;
  let store: Store;
  let ctx: ToolContext;
  const clock = new FakeClock("2026-03-15T10:00:00Z");
  const catalog = createToolCatalog();
  const calls: Array<{ name: string; args: unknown }> = [];
  const sql = <T extends object>(text: string, params: unknown[] = []) =>
    store.query<T>(text, [ctx.orgId, ...params]);

  /** A turn as the service makes one: the real catalog, each read validated and scope checked. */
  function realTurn(message: string) {
    const sources: Source[] = [];
    const turn: PlannerTurn = {
      message,
      history: [],
      tools: catalog.tools,
      refusedTools: [],
      async call(name, args) {
        calls.push({ name, args });
        const output = await runReadTool(catalog.get(name)!, args, ctx);
        sources.push(...output.sources);
        return output as never;
      },
      async propose(name, args) {
        const prepared = await prepareWriteTool(catalog.get(name)!, args, ctx);
        return { id: "act_1", tool: name, arguments: prepared.arguments, preview: prepared.preview };
      },
      emit: () => undefined,
      now: ctx.now,
      today: ctx.today,
    };
    return { turn, sources };
  }
  const plan = (turn: PlannerTurn) =>
    createLlmPlanner({
      llm: {
        url: server.baseUrl,
        model: "scripted-model",
        apiKey: undefined,
        timeoutMs: 5_000,
        maxSteps: 4,
        maxTokens: 256,
      },
      fallback: fakeFallback().planner,
    }).plan(turn);

  beforeAll(async () => {
    server = await startOpenAiServer();
    store = await storeKinds()[0]!.open();
    const org = await createOrganization(store, { name: `sync-llm-query-${Date.now()}`, plan: "free" });
    await seedDemo(store, clock, org.id);
    const now = clock.now();
    ctx = {
      orgId: org.id,
      scopes: ["*"],
      now,
      today: isoDate(now),
      store,
      services: createResourceServices(store, clock),
    };
  });
  afterAll(async () => {
    await server.close();
    await store.dispose();
  });
  beforeEach(() => {
    server.reset();
    calls.length = 0;
  });
  afterEach(() => {
    expect(server.pending()).toBe(0);
  });

  it("calls query_records for an average and a filtered, ordered list, then answers from them", async () => {
    const average = {
      resource: "invoices",
      where: [{ field: "status", op: "eq", value: "paid" }],
      aggregate: { fn: "avg", field: "amount" },
    };
    const large = {
      resource: "deals",
      where: [{ field: "value", op: "gt", value: 10000 }],
      order_by: "-value",
      limit: 5,
    };
    server.script(
      completion({
        toolCalls: [
          { id: "call_avg", name: "query_records", arguments: JSON.stringify(average) },
          { id: "call_deals", name: "query_records", arguments: JSON.stringify(large) },
        ],
      }),
      streamed({ content: ["Paid invoices average ", "the amount above; the largest deals are listed."] }),
    );
    const { turn, sources } = realTurn("What is the average paid invoice, and which deals are over 10,000?");
    const outcome = await plan(turn);

    expect(calls).toEqual([
      { name: "query_records", args: average },
      { name: "query_records", args: large },
    ]);
    const tool = server.requests[0]!.body.tools!.find((entry) => entry.function.name === "query_records")!;
    expect(tool.type).toBe("function");
    expect(tool.function.description).toContain("One structured question over one resource");
    expect(tool.function.parameters).not.toHaveProperty("$schema");
    expect(tool.function.parameters.type).toBe("object");
    for (const property of [
      "resource",
      "where",
      "aggregate",
      "ratio",
      "group_by",
      "order_by",
      "limit",
      "offset",
    ]) {
      expect(tool.function.parameters.properties, property).toHaveProperty(property);
    }
    expect(tool.function.parameters.properties!.where).toMatchObject({
      type: "array",
      items: {
        type: "object",
        properties: { field: {}, op: { enum: expect.arrayContaining(["gt", "not_in"]) } },
      },
    });
    expect(tool.function.parameters.required).toEqual(["resource"]);

    const [avgMessage, dealsMessage] = toolMessages(server, 1);
    expect(avgMessage!.tool_call_id).toBe("call_avg");
    expect(dealsMessage!.tool_call_id).toBe("call_deals");
    const [paid] = await sql<{ avg: string; n: number }>(
      "SELECT round(avg(amount), 2)::text AS avg, count(*)::int AS n FROM invoices WHERE org_id = $1 AND status = 'paid'",
    );
    expect(JSON.parse(avgMessage!.content!)).toEqual({
      resource: "invoices",
      mode: "aggregate",
      total: paid!.n,
      fn: "avg",
      field: "amount",
      values: [{ currency: "EUR", value: paid!.avg, count: paid!.n }],
    });
    const deals = await sql<{ id: string }>(
      "SELECT id FROM deals WHERE org_id = $1 AND value > 10000 ORDER BY value DESC, id DESC",
    );
    expect(deals.length).toBeGreaterThan(0);
    const listed = JSON.parse(dealsMessage!.content!);
    expect(listed).toMatchObject({ resource: "deals", mode: "records", total: deals.length });
    expect(listed.records.map((record: { id: string }) => record.id)).toEqual(
      deals.slice(0, 5).map((row) => row.id),
    );
    expect(sources).toEqual(deals.slice(0, 5).map((row) => ({ object: "deal", id: row.id })));
    expect(outcome).toEqual({
      reply: "Paid invoices average the amount above; the largest deals are listed.",
      model: "scripted-model",
    });
  });

  it("returns query_records' validation errors to the model, which corrects its question", async () => {
    server.script(
      completion({
        toolCalls: [
          {
            id: "call_colour",
            name: "query_records",
            arguments: '{"resource":"invoices","where":[{"field":"colour","op":"eq","value":"red"}]}',
          },
          {
            id: "call_between",
            name: "query_records",
            arguments: '{"resource":"deals","where":[{"field":"value","op":"between","value":5}]}',
          },
        ],
      }),
      completion({
        toolCalls: [
          {
            id: "call_fixed",
            name: "query_records",
            arguments: '{"resource":"invoices","aggregate":{"fn":"count"}}',
          },
        ],
      }),
      completion({ content: "Invoices have no colour; I counted them instead." }),
    );
    const { turn } = realTurn("how many red invoices?");
    const outcome = await plan(turn);

    expect(calls.map((call) => call.name)).toEqual(["query_records", "query_records", "query_records"]);
    const [colour, between] = toolMessages(server, 1).map((message) => JSON.parse(message.content!));
    expect(colour.error).toBe("validation_failed");
    expect(colour.message).toMatch(/^invoices has no field 'colour' \(fields: id, number, client/);
    expect(between.error).toBe("validation_failed");
    expect(between.message).toMatch(/^query_records: where\.0\.op/);
    const [all] = await sql<{ n: number }>("SELECT count(*)::int AS n FROM invoices WHERE org_id = $1");
    const fixed = toolMessages(server, 2)[2]!;
    expect(fixed.tool_call_id).toBe("call_fixed");
    expect(JSON.parse(fixed.content!)).toMatchObject({ mode: "aggregate", total: all!.n });
    expect(outcome.reply).toBe("Invoices have no colour; I counted them instead.");
  });
});
