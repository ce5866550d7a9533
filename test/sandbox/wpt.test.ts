import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IsolateHost, SandboxLimits } from "../../sandbox/index.ts";
import { hostFor, recordingIO, request, text } from "./helpers.ts";
import { OBSERVER, runWptFile, wptFiles } from "./wpt.ts";

/**
 * The Web Platform Tests' URL and URLPattern vectors, run inside an isolate against the
 * guest's own `URL` and `URLPattern` (a batch of vectors per request). Each file must
 * pass at least its floor: the counts in sandbox/README.md's "Conformance" table, which
 * lists the vectors that fail and why. When a change passes more, raise the floor and
 * the table together.
 */
const FLOORS: Record<string, number> = {
  "urltestdata.json": 889,
  "setters_tests.json": 278,
  "toascii.json": 87,
  "percent-encoding.json": 7,
  "urlpatterntestdata.json": 347,
};

/** A batch of pattern vectors compiles a few hundred regular expressions: more than a request's 50 ms. */
const LIMITS: SandboxLimits = { memoryLimitMb: 128, cpuTimeLimitMs: 5_000, wallTimeLimitMs: 20_000 };

const GUEST = `${OBSERVER}
export default {
  async fetch(request) {
    const { kind, cases } = await request.json();
    return Response.json(observe(kind, cases));
  },
};`;

let host: IsolateHost;
beforeAll(async () => {
  host = await hostFor(GUEST, LIMITS);
});
afterAll(() => host.dispose());

async function observe(kind: string, cases: unknown[]): Promise<unknown[]> {
  const body = new TextEncoder().encode(JSON.stringify({ kind, cases }));
  const response = await host.invoke(
    request("https://wpt.example/", {
      method: "POST",
      headers: [["content-type", "application/json"]],
      body,
    }),
    recordingIO(),
  );
  return JSON.parse(await text(response)) as unknown[];
}

describe("URLPattern in an isolate", () => {
  it("is a global as the others are (non-enumerable, replaceable), its class made on first read", async () => {
    const probe = await hostFor(
      `export default {
        fetch() {
          const before = Object.getOwnPropertyDescriptor(globalThis, "URLPattern");
          const pattern = new URLPattern({ pathname: "/books/:id" });
          const after = Object.getOwnPropertyDescriptor(globalThis, "URLPattern");
          const id = pattern.exec("https://example.com/books/42?x#y").pathname.groups.id;
          globalThis.URLPattern = "replaced";
          return Response.json({
            lazy: typeof before.get, made: typeof after.value, enumerable: after.enumerable,
            id, wildcard: pattern.hostname, replaced: URLPattern, listed: Object.keys(globalThis).includes("URLPattern"),
          });
        },
      };`,
    );
    try {
      expect(JSON.parse(await text(await probe.invoke(request(), recordingIO())))).toEqual({
        lazy: "function",
        made: "function",
        enumerable: false,
        id: "42",
        wildcard: "*",
        replaced: "replaced",
        listed: false,
      });
    } finally {
      await probe.dispose();
    }
  });
});

describe("Web Platform Tests in an isolate", () => {
  for (const file of wptFiles()) {
    it(`passes at least ${FLOORS[file.file]} of ${file.file}`, async () => {
      const result = await runWptFile(file, observe);
      const skipped = file.skipped.map((why) => `\n  skipped: ${why}`).join("");
      const failing = result.failures.map((line) => `\n  fails: ${line}`).join("");
      // The list the README's table is checked against.
      console.info(`${result.file}: ${result.passed}/${result.vectors} passed${skipped}${failing}`);
      expect(result.passed, `${result.file} fell below its floor:${failing}`).toBeGreaterThanOrEqual(
        FLOORS[result.file]!,
      );
    });
  }
});
