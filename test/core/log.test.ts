import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createLineBuffer, createLogger } from "../../core/index.ts";

describe("createLogger", () => {
  it("writes JSON lines at or above its level, with its base fields, secrets redacted and errors reduced", () => {
    const lines: string[] = [];
    const log = createLogger({
      level: "info",
      write: (line) => lines.push(line),
      base: { role: "api", api_key: "sk_live_base" },
    });
    log.debug("hidden");
    log.info("request", {
      status: 200,
      authorization: "Bearer sk_live_x",
      client_secret: "s",
      Cookie: "a=1",
      error: new TypeError("bad"),
    });
    log.child({ request_id: "req_1", password: "p" }).error("failed", { role: "worker" });
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      level: "info",
      msg: "request",
      role: "api",
      api_key: "[redacted]",
      status: 200,
      authorization: "[redacted]",
      client_secret: "[redacted]",
      Cookie: "[redacted]",
      error: { name: "TypeError", message: "bad" },
    });
    expect(Object.keys(records[0]!).slice(0, 4)).toEqual(["time", "level", "msg", "role"]);
    expect(records[1]).toMatchObject({
      level: "error",
      role: "worker",
      request_id: "req_1",
      password: "[redacted]",
    });
    expect(lines.join("\n")).not.toMatch(/sk_live|Bearer|a=1|"p"/);
  });
});

describe("createLineBuffer", () => {
  it("writes the lines of one turn together, in order, and the next turn's apart", () => {
    const chunks: string[] = [];
    const turns: Array<() => void> = [];
    const buffer = createLineBuffer(
      (chunk) => chunks.push(chunk),
      (flush) => turns.push(flush),
    );
    buffer.write("a");
    buffer.write("b");
    expect(chunks).toEqual([]);
    expect(turns).toHaveLength(1);
    turns.shift()!();
    buffer.write("c");
    turns.shift()!();
    expect(chunks).toEqual(["a\nb\n", "c\n"]);
  });

  it("writes at once past 64 kB instead of holding a burst for the whole turn", () => {
    const chunks: string[] = [];
    const buffer = createLineBuffer(
      (chunk) => chunks.push(chunk),
      () => {},
    );
    const line = "x".repeat(1023);
    for (let i = 0; i < 64; i++) buffer.write(line);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.length).toBe(64 * 1024);
  });

  it.each(["end", "exit", "throw"])("loses no line when the process leaves by %s", (how) => {
    const script = fileURLToPath(new URL("../fixtures/log-exit.ts", import.meta.url));
    const child = spawnSync(process.execPath, ["--import", "tsx", script, how], {
      encoding: "utf8",
      timeout: 60_000,
    });
    const messages = child.stdout
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toEqual(["first", "second"]);
    expect(child.status).toBe(how === "exit" ? 3 : how === "throw" ? 1 : 0);
  });
});
