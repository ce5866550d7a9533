import { execFile } from "node:child_process";
import { generateKeyPairSync, sign } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DENO_BIN, denoEnv, denoMissing } from "../../helpers/deno.ts";
import { json, startScriptedServer, type ScriptedServer } from "./scripted-server.ts";

const run = promisify(execFile);
const INDEX = fileURLToPath(new URL("../../../clients/typescript/src/index.ts", import.meta.url));

/**
 * The client's sources under Deno as they are (`.ts` imports, no build): type-checked with Deno's
 * own libraries (no Node types), then run without permission to read the environment.
 */
describe.skipIf(denoMissing() !== null)("the client under Deno", () => {
  let dir: string;
  let server: ScriptedServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tessera-client-deno-"));
    server = await startScriptedServer([
      json(200, { data: [{ id: "con_1" }, { id: "con_2" }], meta: { total: 3, page: 1, per_page: 2 } }),
      json(200, { data: [{ id: "con_3" }], meta: { total: 3, page: 2, per_page: 2 } }),
    ]);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("type-checks, lists through pages and verifies an ed25519 webhook with crypto.subtle", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const whpk = `whpk_${Buffer.from(publicKey.export({ format: "jwk" }).x!, "base64url").toString("base64")}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const body = '{"id":"evt_1","object":"event","type":"invoice.paid","timestamp":"","data":{"object":{}}}';
    const signature = `v1a,${sign(null, Buffer.from(`evt_1.${timestamp}.${body}`), privateKey).toString("base64")}`;
    const main = join(dir, "main.ts");
    writeFileSync(
      main,
      `import { Tessera } from ${JSON.stringify(INDEX)};
const [baseURL, whpk, timestamp, signature, body] = Deno.args as [string, string, string, string, string];
// No --allow-env: the defaults are read where they may be, and nothing throws.
const fallback = new Tessera({ apiKey: "sk_live_deno" }).baseURL;
const client = new Tessera({ apiKey: "sk_live_deno", baseURL });
const ids: string[] = [];
for await (const contact of client.contacts.list({ per_page: 2 })) ids.push(contact.id);
const headers = new Headers({ "webhook-id": "evt_1", "webhook-timestamp": timestamp, "webhook-signature": signature });
const event = await Tessera.webhooks.verify(body, headers, whpk);
console.log(JSON.stringify({ fallback, ids, event: event.type }));
`,
    );
    const env = denoEnv(join(dir, "deno-dir"));
    await run(DENO_BIN, ["check", main], { env });
    const args = [
      "run",
      "--no-check",
      `--allow-net=${new URL(server.url).host}`,
      main,
      server.url,
      whpk,
      String(timestamp),
      signature,
      body,
    ];
    const { stdout } = await run(DENO_BIN, args, { env });
    expect(JSON.parse(stdout)).toEqual({
      fallback: "http://127.0.0.1:8787",
      ids: ["con_1", "con_2", "con_3"],
      event: "invoice.paid",
    });
    expect(server.requests.map((request) => request.path)).toEqual([
      "/v1/contacts?per_page=2",
      "/v1/contacts?per_page=2&page=2",
    ]);
  });
});
