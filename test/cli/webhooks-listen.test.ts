import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, runCli, startServerProcess, type ServerProcess } from "../helpers/process.ts";

/**
 * `tessera webhooks listen`: events reach a local receiver through the CLI, signed with the
 * session secret exactly as a webhook endpoint's deliveries are, so a receiver verifying with
 * the `standardwebhooks` package accepts them. The server is never asked to call localhost.
 */
// Each CLI call starts Node with the TypeScript loader: seconds each on a loaded machine.
describe("tessera webhooks listen", { timeout: 90_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tessera-listen-"));
  let server: ServerProcess;
  let receiver: Server;
  let receiverUrl: string;
  let env: Record<string, string>;
  let secret: string;
  const received: Array<{ verified: boolean; type: string; id: string }> = [];

  beforeAll(async () => {
    server = await startServerProcess({ TESSERA_DATA_DIR: dataDir });
    const key = /sk_live_[0-9A-Za-z]+/.exec(server.output())?.[0] ?? "";
    env = { TESSERA_DATA_DIR: dataDir, TESSERA_API_KEY: key };
    secret = (await runCli(["webhooks", "listen", "--print-secret"], env)).stdout.trim();
    receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        try {
          const event = new Webhook(secret).verify(body, req.headers as Record<string, string>) as {
            type: string;
            id: string;
          };
          received.push({ verified: true, type: event.type, id: event.id });
          res.writeHead(204).end();
        } catch {
          received.push({ verified: false, type: "", id: "" });
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  const createContact = async (name: string) => {
    const response = await fetch(`${server.url}/v1/contacts`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.TESSERA_API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ name }),
    });
    expect(response.status).toBe(201);
  };

  it("prints the same whsec_ secret on every run", async () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect((await runCli(["webhooks", "listen", "--print-secret"], env)).stdout.trim()).toBe(secret);
  });

  it("replays an event by id, signed so that the receiver verifies it", async () => {
    await createContact("Replayed Person");
    const events = await fetch(`${server.url}/v1/events?type=contact.created&per_page=1`, {
      headers: { authorization: `Bearer ${env.TESSERA_API_KEY}` },
    });
    const [event] = ((await events.json()) as { data: Array<{ id: string }> }).data;
    const replayed = await runCli(
      ["webhooks", "listen", "--forward-to", receiverUrl, "--replay", event!.id, "--count", "1"],
      env,
    );
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toMatch(new RegExp(`contact\\.created ${event!.id} → 204`));
    expect(received.at(-1)).toEqual({ verified: true, type: "contact.created", id: event!.id });
  });

  it("forwards new events as they happen, only the kinds asked for, and stops after --count", async () => {
    const child = spawn(
      process.execPath,
      [
        "--no-node-snapshot",
        BIN,
        "webhooks",
        "listen",
        "--forward-to",
        receiverUrl,
        "--events",
        "contact.*",
        "--count",
        "2",
      ],
      { env: { ...process.env, LOG_LEVEL: "warn", ...env }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    for (let i = 0; i < 1200 && !stdout.includes("Ready!"); i++) await new Promise((r) => setTimeout(r, 50));
    expect(stdout).toContain(`Ready! Forwarding events to ${receiverUrl}`);
    const before = received.length;
    await fetch(`${server.url}/v1/products`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.TESSERA_API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Not a contact", price: 1, currency: "EUR" }),
    });
    await createContact("Live One");
    await createContact("Live Two");
    expect(await exited).toBe(0);
    const lines = stdout.split("\n").filter((line) => line.includes("→"));
    expect(lines).toHaveLength(2);
    expect(lines.every((line) => / contact\.created evt_\w+ → 204$/.test(line))).toBe(true);
    expect(received.slice(before).map((r) => [r.verified, r.type])).toEqual([
      [true, "contact.created"],
      [true, "contact.created"],
    ]);
  });

  it("says what is wrong in one line: an unknown event type, no receiver", async () => {
    const unknown = await runCli(
      ["webhooks", "listen", "--forward-to", receiverUrl, "--events", "nope.happened"],
      env,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: Bad request: type: unknown event type 'nope\.happened'/);
    const usage = await runCli(["webhooks", "listen"], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("webhooks listen --forward-to URL");
  });
});
