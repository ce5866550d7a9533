import { beforeAll, describe, expect, it } from "vitest";
import { MAX_SOURCE_NESTING, nestingPastLimit } from "../../runtime/compile-depth.ts";
import { useTestApp, type TestOrg } from "../helpers/app.ts";
import { storeKinds } from "../helpers/stores.ts";

/**
 * One tenant's upload must not break every tenant's deploys on the node. esbuild-wasm's parser
 * recurses in one child process shared by all deploys; a deeply nested source overflowed its stack,
 * that deploy was never answered and every later compile on the node failed ("The service was
 * stopped", a 500) until a restart. Now that deploy is a 422 within seconds, the compiler restarts,
 * and other deploys, at the same time or after, compile as usual.
 */

const HELLO = `export default { fetch: () => Response.json({ hello: "world" }) };`;
const returning = (expression: string) =>
  `export default { fetch() { return new Response(String(${expression})) } }`;
/** Nested brackets: the pre-check refuses them before esbuild sees them. */
const BRACKETS = returning(`${"[".repeat(7_000)}${"]".repeat(7_000)}`);
/** No brackets to count: only the compiler's watchdog catches these. */
const NOTS = returning(`${"!".repeat(100_000)}1`);
const ELSE_IFS = `let a = 0;\nif (a) a = 1;${" else if (a) a = 1;".repeat(100_000)}\n${HELLO}`;

/**
 * The compiler is the same whatever the store, so these run on the embedded one only (each case
 * costs a compiler's life). An answer within the test's timeout (30 s) is the proof that the watchdog,
 * not the 120 s backstop, caught the crash; no duration is asserted.
 */
describe.each(storeKinds().slice(0, 1))("deploying sources the compiler cannot take, on $name", (kind) => {
  const t = useTestApp(kind, { env: { TESSERA_FUNCTION_MAX_UPLOAD_BYTES: String(4 * 1024 * 1024) } });
  let hostile: TestOrg;
  let other: TestOrg;

  beforeAll(async () => {
    [hostile, other] = await Promise.all([t.newOrg(), t.newOrg()]);
  });

  const deploy = (org: TestOrg, name: string, source: string) =>
    t.request("POST", "/v1/functions", { key: org.key, body: { name, files: { "index.ts": source } } });

  /** Deploys `name` for `org` and calls it: a working compiler, end to end. */
  async function deploysAndAnswers(org: TestOrg, name: string): Promise<void> {
    const deployed = await deploy(org, name, HELLO);
    expect(deployed.status, deployed.text).toBe(201);
    const invoked = await t.request("POST", `/v1/functions/${name}/invoke`, { key: org.key });
    expect(invoked.status).toBe(200);
    expect(invoked.body).toEqual({ hello: "world" });
  }

  it("refuses 7,000 nested brackets with a 422 at file:line:column, before compiling them", async () => {
    const refused = await deploy(hostile, "brackets", BRACKETS);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("validation_failed");
    expect(refused.body.detail).toMatch(/index\.ts:1:\d+: brackets nest more than 1000 deep/);
    expect(refused.body.errors[0]).toMatchObject({ param: "files.index.ts", code: "compile_error" });
    await deploysAndAnswers(other, "after-brackets");
  });

  it.each([
    ["100,000 `!`", NOTS],
    ["100,000 `else if`", ELSE_IFS],
  ])(
    "answers %s, which stops the compiler, with a 422 promptly; another organization deploys right after",
    async (_, source) => {
      const refused = await deploy(hostile, "chain", source);
      expect(refused.status, refused.text).toBe(422);
      expect(refused.body.detail).toMatch(/^The source nests too deeply for the compiler/);
      expect(refused.body.errors).toEqual([expect.objectContaining({ param: "files", code: "too_deep" })]);
      await deploysAndAnswers(other, "after-chain");
    },
  );

  it("deploys the innocent one of two deploys at once, and refuses only the hostile one", async () => {
    const [refused, innocent] = await Promise.all([
      deploy(hostile, "at-once", NOTS),
      // Sent while the hostile build is on the compiler: both are pending when it stops.
      new Promise((resolve) => setTimeout(resolve, 200)).then(() => deploy(other, "innocent", HELLO)),
    ]);
    expect(refused.status, refused.text).toBe(422);
    expect(innocent.status, innocent.text).toBe(201);
    const invoked = await t.request("POST", "/v1/functions/innocent/invoke", { key: other.key });
    expect(invoked.body).toEqual({ hello: "world" });
  });
});

describe("nestingPastLimit", () => {
  it("counts brackets, braces, parentheses and template substitutions, and says where the limit is passed", () => {
    expect(nestingPastLimit("f([{a: 1}])", 3)).toBeUndefined();
    expect(nestingPastLimit("f([{a: 1}])", 2)).toEqual({ line: 1, column: 3, lineText: "f([{a: 1}])" });
    expect(nestingPastLimit("x\n  `${`${1}`}`", 1)).toMatchObject({ line: 2, column: 6 });
  });

  it("skips strings, comments, template text and regular expressions", () => {
    const source = [
      `const s = "(((" + '[[[';`,
      "// (((",
      "/* [[[ */",
      "const t = `(((${a}[[[`;",
      "const r = /[(]{2}\\(/g;",
      "const d = a / b / (c);",
      "f(x)",
    ].join("\n");
    expect(nestingPastLimit(source, 1)).toBeUndefined();
  });

  it("reads a source of any depth without recursion", () => {
    const deep = `${"(".repeat(1_000_000)}${")".repeat(1_000_000)}`;
    expect(nestingPastLimit(deep)).toMatchObject({ line: 1, column: MAX_SOURCE_NESTING });
  });
});
