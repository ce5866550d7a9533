import { crc32, deflateRawSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../core/index.ts";
import { createFunctionRunWorker, type FunctionRunWorker } from "../../runtime/index.ts";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { signedInMember, type TestMember } from "../helpers/members.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * Dashboard → Functions through the app, as a browser's forms use it: deploy from the editor (a
 * compile error shown at the field, the code kept), from a zip and from a folder (each file named by
 * its relative path); zips that leave the folder, link or unpack past the limit refused; versions
 * and rollback; secrets whose value no page ever shows again; the request builder; logs; a failed
 * trigger run retried; what a viewer may not do; CSRF. test/browser/ drives the same pages.
 */

/** Small, so a zip that unpacks past it and a body over it are cheap to make. */
const MAX_UPLOAD = 64 * 1024;

const HELLO = `export default { fetch: () => Response.json({ hello: "world" }) };`;
const GREETER = {
  "index.ts": `import { greet } from "./lib/greet.ts";\nexport default { fetch: () => new Response(greet("zip")) };`,
  "lib/greet.ts": `export const greet = (who: string) => "hello " + who;`,
};
const ECHO = `export default {
  async fetch(request, env, ctx) {
    console.log("echo", request.method, new URL(request.url).pathname);
    return Response.json(
      { method: request.method, url: request.url, test: request.headers.get("x-test"), body: await request.text(), user: ctx.user?.user?.email ?? null },
      { headers: { "x-answer": "<i>yes</i>" } },
    );
  },
};`;

interface ZipItem {
  path: string;
  content: string;
  symlink?: boolean;
  /** The size the central directory claims (a zip bomb's lie); the real one by default. */
  declaredSize?: number;
}

/** A zip archive (deflate, Unix attributes), written by hand as APPNOTE.TXT §4.3 lays it out. */
function zipOf(items: ZipItem[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const item of items) {
    const data = Buffer.from(item.content);
    const packed = deflateRawSync(data);
    const name = Buffer.from(item.path);
    const size = item.declaredSize ?? data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(data), 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(data), 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((item.symlink ? 0o120777 : 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += 30 + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(items.length, 8);
  end.writeUInt16LE(items.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

describe.each(storeKinds())("dashboard functions on $name", (kind) => {
  let org: TestOrg;
  let owner: TestMember;
  let viewer: TestMember;
  const t = useTestApp(kind, { env: { TESSERA_FUNCTION_MAX_UPLOAD_BYTES: String(MAX_UPLOAD) } });

  beforeAll(async () => {
    org = await t.newOrg();
    owner = await signedInMember(t, org.id, "owner");
    viewer = await signedInMember(t, org.id, "viewer");
  });

  const get = (path: string, member = owner) =>
    t.request("GET", path, { headers: { cookie: member.cookie } });
  /** A urlencoded form, with the member's CSRF token unless `csrf` is false. */
  const post = (path: string, fields: Record<string, string>, member = owner, csrf = true) =>
    t.request("POST", path, {
      raw: new URLSearchParams({ ...fields, ...(csrf ? { _csrf: member.csrf } : {}) }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: member.cookie },
    });
  /** A multipart form, as a form with `enctype="multipart/form-data"` sends it. */
  const upload = async (path: string, fill: (form: FormData) => void, member = owner, csrf = true) => {
    const form = new FormData();
    if (csrf) form.append("_csrf", member.csrf);
    form.append("source", "upload");
    fill(form);
    // Encoded to bytes first: handed over as FormData's own stream, a body the page stops reading
    // (the 413) leaves Node 24's fetch enqueueing into the closed stream, an unhandled rejection.
    const encoded = new Request("http://form.invalid/", { method: "POST", body: form });
    const body = await encoded.arrayBuffer();
    const response = await t.fetch(path, {
      method: "POST",
      body,
      headers: { cookie: member.cookie, "content-type": encoded.headers.get("content-type")! },
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  const invokeV1 = async (name: string) =>
    (await t.request("GET", `/v1/functions/${name}/invoke`, { key: org.key })).text;
  const deployV1 = (name: string, files: Record<string, string>, extra: Record<string, unknown> = {}) =>
    t.request("POST", "/v1/functions", { key: org.key, body: { name, files, ...extra } });

  it("lists functions and shows each one's overview, under the dashboard's CSP", async () => {
    expect((await deployV1("listed", { "index.ts": HELLO })).status).toBe(201);
    const list = await get("/functions");
    expect(list.status).toBe(200);
    expect(list.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(list.text).toContain('href="/functions/listed"');
    expect(list.text).toContain('href="/functions/new"');
    const one = await get("/functions/listed");
    expect(one.status).toBe(200);
    expect(one.text).toContain("/v1/functions/listed/invoke");
    expect(one.text).toContain('<script src="/dashboard/assets/functions.js" defer></script>');
    expect((await get("/functions/no-such-function")).status).toBe(404);
    expect((await get("/functions/bad%20name")).status).toBe(404);
    const script = await t.request("GET", "/dashboard/assets/functions.js");
    expect(script.status).toBe(200);
    expect((await t.request("GET", "/dashboard/assets/app.css")).text).toContain(".fn-logs");
  });

  it("deploys from the editor, and shows a compile error at the field with the code kept", async () => {
    const form = await get("/functions/new");
    expect(form.status).toBe(200);
    expect(form.text).toContain("webkitdirectory");
    expect(form.text).toContain('accept=".zip,application/zip"');
    expect(form.text).toContain("Response.json({ hello: &quot;world&quot; })");

    const done = await post("/functions/new", { source: "editor", name: "edited", code: HELLO, auth: "key" });
    expect(done.status, done.text).toBe(303);
    expect(done.headers.get("location")).toBe("/functions/edited?deployed=1");
    expect((await get("/functions/edited?deployed=1")).text).toContain("Version 1 is deployed");
    expect(JSON.parse(await invokeV1("edited"))).toEqual({ hello: "world" });

    const broken = `export default { fetch() { return <b>new Response("x" }`;
    const failed = await post("/functions/edited/deploy", { source: "editor", code: broken, auth: "key" });
    expect(failed.status).toBe(422);
    expect(failed.text).toMatch(/id="fn-editor-error"[^>]*>index\.ts:1:\d+: /);
    // The code comes back as typed, escaped in its textarea.
    expect(failed.text).toContain("return &lt;b&gt;new Response(&quot;x&quot; }");
    const badName = await post("/functions/new", { source: "editor", name: "Not A Name", code: HELLO });
    expect(badName.status).toBe(422);
    expect(badName.text).toContain('id="fn-editor-name-error"');
    expect((await t.request("GET", "/v1/functions/edited", { key: org.key })).body.version).toBe(1);
  });

  it("deploys a zip (its folder, and macOS metadata, left out) and a folder sent file by file (.env and .git left out)", async () => {
    const zip = zipOf([
      { path: "greeter/index.ts", content: GREETER["index.ts"] },
      { path: "greeter/lib/greet.ts", content: GREETER["lib/greet.ts"] },
      { path: "__MACOSX/greeter/._index.ts", content: "\u0000\u0005junk" },
    ]);
    const zipped = await upload("/functions/new", (form) => {
      form.append("name", "zipped");
      form.append("zip", new File([zip], "greeter.zip", { type: "application/zip" }));
      form.append("folder", new File([], ""));
    });
    expect(zipped.status, zipped.text).toBe(303);
    expect(await invokeV1("zipped")).toBe("hello zip");
    const deployment = await t.request("GET", "/v1/functions/zipped/deployments/1", { key: org.key });
    expect(deployment.body.files.map((file: { path: string }) => file.path)).toEqual([
      "index.ts",
      "lib/greet.ts",
    ]);

    // A browser names each file of a picked folder by its path under that folder.
    const folder = await upload("/functions/new", (form) => {
      form.append("name", "foldered");
      form.append("folder", new File([GREETER["index.ts"].replace('"zip"', '"folder"')], "my-fn/index.ts"));
      form.append("folder", new File([GREETER["lib/greet.ts"]], "my-fn/lib/greet.ts"));
      // Left out as the CLI leaves them out: a secrets file and version control are never kept.
      form.append("folder", new File(["TOKEN=s3cret"], "my-fn/.env.local"));
      form.append("folder", new File(["ref: refs/heads/main"], "my-fn/.git/HEAD"));
      form.append("zip", new File([], ""));
    });
    expect(folder.status, folder.text).toBe(303);
    expect(await invokeV1("foldered")).toBe("hello folder");
    const kept = await t.request("GET", "/v1/functions/foldered/deployments/1", { key: org.key });
    expect(kept.body.files.map((file: { path: string }) => file.path)).toEqual(["index.ts", "lib/greet.ts"]);

    const nothing = await upload("/functions/new", (form) => form.append("name", "empty"));
    expect(nothing.status).toBe(422);
    expect(nothing.text).toContain("Choose a folder or a zip to upload");
  });

  it("refuses zips that leave the folder, hold links or unpack past the limit, and bodies over it", async () => {
    const refused = async (items: ZipItem[]) => {
      const res = await upload("/functions/new", (form) => {
        form.append("name", "refused");
        form.append("zip", new File([zipOf(items)], "f.zip"));
      });
      expect(res.status).toBe(422);
      return /id="fn-upload-error"[^>]*>([^<]*)</.exec(res.text)![1]!;
    };
    expect(
      await refused([
        { path: "index.ts", content: HELLO },
        { path: "../x", content: "x" },
      ]),
    ).toBe("&#39;../x&#39; points outside the folder (..): entries must stay inside it");
    expect(await refused([{ path: "/etc/passwd", content: "x" }])).toContain("is an absolute path");
    expect(await refused([{ path: "link.ts", content: "/etc/passwd", symlink: true }])).toContain(
      "is a symbolic link",
    );
    expect(await refused([{ path: "big.ts", content: "0".repeat(MAX_UPLOAD + 1) }])).toBe(
      `The zip unpacks to more than ${MAX_UPLOAD} bytes`,
    );
    // It says 100 bytes and inflates to more: inflating stops there.
    expect(await refused([{ path: "bomb.ts", content: "0".repeat(50_000), declaredSize: 100 }])).toContain(
      "does not unpack to its declared size",
    );
    expect(
      await refused([
        { path: "index.ts", content: HELLO },
        { path: "index.ts", content: HELLO },
      ]),
    ).toContain("twice");
    const notZip = await upload("/functions/new", (form) => {
      form.append("name", "refused");
      form.append("zip", new File(["not a zip at all"], "f.zip"));
    });
    expect(notZip.text).toContain("This file is not a zip archive");

    const tooLarge = await upload("/functions/new", (form) => {
      form.append("name", "refused");
      form.append("folder", new File(["x".repeat(MAX_UPLOAD + 1)], "f/index.ts"));
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.text).toContain(`Request body exceeds ${MAX_UPLOAD} bytes`);
    expect((await t.request("GET", "/v1/functions/refused", { key: org.key })).status).toBe(404);
  });

  it("lists versions and rolls back to one", async () => {
    await deployV1("versioned", { "index.ts": `export default () => new Response("one")` });
    await deployV1("versioned", { "index.ts": `export default () => new Response("two")` });
    const versions = await get("/functions/versioned/versions");
    expect(versions.status).toBe(200);
    expect(versions.text).toContain('aria-label="Roll back to this version (v1)"');
    expect(versions.text).not.toContain("Roll back to this version (v2)");
    expect(versions.text).toContain("data-confirm=");
    const rolled = await post("/functions/versioned/versions/1/rollback", {});
    expect(rolled.status).toBe(303);
    expect(await invokeV1("versioned")).toBe("one");
    expect((await get("/functions/versioned")).text).toContain("version 1 (latest is 2)");
    expect((await post("/functions/versioned/versions/9/rollback", {})).status).toBe(422);
    expect((await post("/functions/versioned/versions/x/rollback", {})).status).toBe(404);
  });

  it("sets and deletes secrets, never sending a value back", async () => {
    const VALUE = "s3cret-value-never-shown";
    await deployV1("secretive", {
      "index.ts": `export default { fetch: () => Response.json({ length: Deno.env.get("API_TOKEN")?.length ?? 0 }) };`,
    });
    const answers: string[] = [];
    const set = await post("/functions/secretive/secrets", { name: "API_TOKEN", value: VALUE });
    answers.push(set.text);
    expect(set.status).toBe(200);
    expect(set.text).toContain("Secret API_TOKEN is set");
    const refused = await post("/functions/secretive/secrets", { name: "1bad name", value: VALUE });
    answers.push(refused.text);
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('id="name-error"');
    const page = await get("/functions/secretive/secrets");
    answers.push(page.text);
    expect(page.text).toContain("<code>API_TOKEN</code>");
    const invoked = await post("/functions/secretive/invoke", {
      method: "GET",
      path: "/",
      headers: "",
      body: "",
    });
    answers.push(invoked.text);
    expect(invoked.text).toContain(`{&quot;length&quot;:${VALUE.length}}`);
    for (const text of answers) expect(text).not.toContain(VALUE);

    const deleted = await post("/functions/secretive/secrets/API_TOKEN/delete", {});
    expect(deleted.status).toBe(303);
    expect((await get("/functions/secretive/secrets")).text).not.toContain("<code>API_TOKEN</code>");
    expect((await post("/functions/secretive/secrets/API_TOKEN/delete", {})).status).toBe(404);
  });

  it("invokes with the request builder as the signed-in user, and shows the answer escaped and the logs", async () => {
    await deployV1("echo", { "index.ts": ECHO });
    const res = await post("/functions/echo/invoke", {
      method: "POST",
      path: "/items?limit=2",
      headers: "content-type: application/json\nx-test: <b>hi</b>",
      body: '{"a":1}',
    });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/class="fn-status fn-status-2xx">200</);
    expect(res.text).toContain("&lt;i&gt;yes&lt;/i&gt;");
    expect(res.text).not.toContain("<b>hi</b>");
    expect(res.text).toContain("&quot;method&quot;:&quot;POST&quot;");
    expect(res.text).toContain("/v1/functions/echo/invoke/items?limit=2");
    expect(res.text).toContain("&quot;test&quot;:&quot;&lt;b&gt;hi&lt;/b&gt;&quot;");
    expect(res.text).toContain(`&quot;user&quot;:&quot;${owner.email}&quot;`);
    expect(res.text).toContain("{&quot;a&quot;:1}");

    const outside = await post("/functions/echo/invoke", { method: "GET", path: "/../../../v1/me" });
    expect(outside.status).toBe(422);
    expect(outside.text).toContain('id="fn-path-error"');
    const badHeader = await post("/functions/echo/invoke", { method: "GET", path: "/", headers: "no colon" });
    expect(badHeader.text).toContain("line 1: write each header as Name: value");

    // Lines are written once the answer is done: a moment after the page.
    let overview = "";
    for (let attempt = 0; attempt < 50 && !overview.includes("echo POST"); attempt++) {
      overview = (await get("/functions/echo")).text;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(overview).toContain("echo POST /v1/functions/echo/invoke/items");
    expect(overview).toContain('data-tail="/v1/functions/echo/logs?per_page=50"');
    // The live tail reads the API with the session cookie.
    const tail = await get("/v1/functions/echo/logs?per_page=50");
    expect(tail.status).toBe(200);
    expect(tail.body.data[0].message).toContain("echo POST");
  });

  it("shows a function's failure as the API answers it", async () => {
    await deployV1("thrower", { "index.ts": `export default () => { throw new Error("<boom>"); }` });
    const res = await post("/functions/thrower/invoke", { method: "GET", path: "" });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/fn-status-5xx">500</);
    expect(res.text).toContain("function_failed");
    expect(res.text).not.toContain("<boom>");
  });

  describe("trigger runs", () => {
    let worker: FunctionRunWorker;
    beforeAll(() => {
      worker = createFunctionRunWorker({
        store: t.store,
        clock: t.clock,
        log: silentLogger,
        invoker: t.invoker,
        config: t.config.functions,
        origin: "http://tessera.test",
      });
    });
    afterAll(() => worker.dispose());

    it("runs a cron schedule now, shows the failed run and retries it", async () => {
      const created = await deployV1(
        "cronned",
        { "index.ts": `export default () => new Response("no", { status: 400 })` },
        { triggers: [{ type: "cron", schedule: "0 3 1 1 *" }] },
      );
      expect(created.status).toBe(201);
      expect((await get("/functions/cronned/runs")).text).toContain("No runs");
      const started = await post("/functions/cronned/runs", { schedule: "0 3 1 1 *" });
      expect(started.status).toBe(303);
      await worker.runOnce();
      const runs = await get("/functions/cronned/runs?status=failed");
      expect(runs.text).toContain("fn-run-failed");
      expect(runs.text).toContain("answered 400");
      const action = /action="(\/functions\/cronned\/runs\/frun_[0-9a-f]+\/retry)"/.exec(runs.text)![1]!;
      expect((await post(action, {}, viewer)).status).toBe(403);
      expect((await post(action, {})).status).toBe(303);
      expect((await get("/functions/cronned/runs?status=pending")).text).toContain("0 of");
      const again = await post(action, {});
      expect(again.status).toBe(409);
      expect(again.text).toContain("only a failed run can be retried");
    });
  });

  it("shows a viewer no write forms and refuses its posts with 403, but lets it invoke as /v1 does", async () => {
    await deployV1("viewed", { "index.ts": HELLO });
    const overview = await get("/functions/viewed", viewer);
    expect(overview.status).toBe(200);
    expect(overview.text).not.toContain('href="/functions/new"');
    for (const tab of ["/deploy", "/versions", "/secrets", "/runs"]) {
      const text = (await get(`/functions/viewed${tab}`, viewer)).text;
      expect(text).not.toMatch(/action="\/functions\/viewed\/(deploy|versions|secrets|runs)/);
    }
    expect((await get("/functions", viewer)).text).not.toContain('href="/functions/new"');
    expect((await get("/functions/new", viewer)).status).toBe(403);
    const editor = { source: "editor", name: "viewed", code: HELLO };
    expect((await post("/functions/new", editor, viewer)).status).toBe(403);
    expect((await post("/functions/viewed/deploy", editor, viewer)).status).toBe(403);
    expect((await post("/functions/viewed/versions/1/rollback", {}, viewer)).status).toBe(403);
    expect((await post("/functions/viewed/secrets", { name: "A", value: "b" }, viewer)).status).toBe(403);
    expect((await post("/functions/viewed/secrets/A/delete", {}, viewer)).status).toBe(403);
    const invoked = await post("/functions/viewed/invoke", { method: "GET", path: "/" }, viewer);
    expect(invoked.status).toBe(200);
    expect(invoked.text).toContain("{&quot;hello&quot;:&quot;world&quot;}");
  });

  it("refuses every form without its CSRF token", async () => {
    await deployV1("guarded", { "index.ts": HELLO });
    const editor = { source: "editor", name: "guarded", code: HELLO };
    expect((await post("/functions/new", editor, owner, false)).status).toBe(403);
    const zip = await upload(
      "/functions/guarded/deploy",
      (form) => form.append("zip", new File([zipOf([{ path: "index.ts", content: HELLO }])], "f.zip")),
      owner,
      false,
    );
    expect(zip.status).toBe(403);
    expect((await post("/functions/guarded/versions/1/rollback", {}, owner, false)).status).toBe(403);
    expect((await post("/functions/guarded/secrets", { name: "A", value: "b" }, owner, false)).status).toBe(
      403,
    );
    expect((await post("/functions/guarded/invoke", { method: "GET" }, owner, false)).status).toBe(403);
    expect((await t.request("GET", "/v1/functions/guarded", { key: org.key })).body.version).toBe(1);
  });
});
