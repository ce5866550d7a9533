import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { denoEnv, denoMissing, runDeno } from "../helpers/deno.ts";
import { compileFunction } from "../../runtime/index.ts";
import type { IsolateHost, SandboxLimits } from "../../sandbox/index.ts";
import { recordingIO, request, testSandbox, text } from "./helpers.ts";
import { TESTHARNESS, passing, report, type WptResult } from "./wpt-testharness.ts";

/**
 * The Web Platform Tests' `dom/events` and `dom/abort` files that run outside a document
 * (`*.any.js`, vendored in test/fixtures/wpt/dom/), each run inside an isolate against the
 * guest's `Event`, `EventTarget`, `AbortController` and `AbortSignal` under a small
 * testharness (wpt-testharness.ts), and under Deno (the reference) when it is installed.
 * Each file must pass at least its floor of subtests: when a change passes more, raise the
 * floor. Where a floor is below its file's count, a comment by it says why.
 */
const FLOORS: Record<string, number> = {
  "dom/abort/AbortSignal.any.js": 5,
  "dom/abort/abort-signal-any.any.js": 10,
  "dom/abort/event.any.js": 8,
  "dom/events/AddEventListenerOptions-once.any.js": 4,
  "dom/events/AddEventListenerOptions-passive.any.js": 5,
  "dom/events/AddEventListenerOptions-signal.any.js": 11,
  "dom/events/CustomEvent.any.js": 3,
  "dom/events/Event-cancelBubble.any.js": 6,
  "dom/events/Event-constants.any.js": 2,
  "dom/events/Event-constructors.any.js": 14,
  "dom/events/Event-defaultPrevented-after-dispatch.any.js": 2,
  "dom/events/Event-defaultPrevented.any.js": 6,
  "dom/events/Event-init-while-dispatching.any.js": 2,
  "dom/events/Event-initEvent.any.js": 12,
  "dom/events/Event-isTrusted.any.js": 1,
  // WPT expects a listener to run on a plain EventTarget after stopPropagation() or
  // cancelBubble = true before dispatch, as browsers do; the DOM Standard's "invoke" (step 4)
  // and Deno run none, and so does Tessera.
  "dom/events/Event-propagation-EventTarget.any.js": 5,
  "dom/events/Event-returnValue.any.js": 7,
  "dom/events/Event-stopImmediatePropagation.any.js": 1,
  "dom/events/Event-subclasses-constructors.any.js": 12,
  "dom/events/Event-type-empty.any.js": 1,
  "dom/events/Event-type.any.js": 1,
  "dom/events/EventListener-handleEvent.any.js": 6,
  "dom/events/EventTarget-add-remove-listener.any.js": 1,
  "dom/events/EventTarget-addEventListener.any.js": 1,
  // "EventTarget can be subclassed" reads an undeclared `detail`: a ReferenceError everywhere.
  "dom/events/EventTarget-constructible.any.js": 1,
  "dom/events/EventTarget-dispatchEvent.any.js": 4,
  "dom/events/EventTarget-removeEventListener.any.js": 1,
  "dom/events/EventTarget-this-of-listener.any.js": 6,
  "dom/events/remove-all-listeners.any.js": 2,
};

/** AbortSignal.any.js waits two seconds for an event that must not come. */
const LIMITS: SandboxLimits = { memoryLimitMb: 128, cpuTimeLimitMs: 5_000, wallTimeLimitMs: 20_000 };

const FIXTURES = new URL("../fixtures/wpt/", import.meta.url);

interface WptSource {
  /** Relative to test/fixtures/wpt/, as WPT names it (`dom/events/…`). */
  file: string;
  title: string;
  /** The file with its `META: script=` helpers before it. */
  code: string;
}

/** The vendored files, with the helpers their `// META: script=` lines name. */
function wptSources(): WptSource[] {
  return ["dom/events", "dom/abort"].flatMap((dir) =>
    readdirSync(new URL(`${dir}/`, FIXTURES))
      .filter((name) => name.endsWith(".any.js"))
      .sort()
      .map((name) => {
        const file = `${dir}/${name}`;
        const source = readFileSync(new URL(file, FIXTURES), "utf8");
        const meta = [...source.matchAll(/^\/\/ META: (\w+)=(.*)$/gm)].map(([, key, value]) => ({
          key,
          value: value!.trim(),
        }));
        const scripts = meta
          .filter((m) => m.key === "script")
          .map((m) => {
            // "/dom/x.js" is from WPT's root, "./x.js" from the file's folder.
            const base = m.value.startsWith("/") ? FIXTURES : new URL(file, FIXTURES);
            return new URL(m.value.replace(/^\//, ""), base);
          })
          .map((url) => readFileSync(url, "utf8"));
        const title = meta.find((m) => m.key === "title")?.value ?? file;
        return { file, title, code: [...scripts, source].join("\n") };
      }),
  );
}

/**
 * Every file as `WPT_FILES[file] = [title, body]`, after the harness. A file's code runs
 * when its request comes, not at boot: its timers then belong to that request.
 */
function wptFilesProgram(sources: WptSource[]): string {
  const files = sources
    .map((s) => `${JSON.stringify(s.file)}: [${JSON.stringify(s.title)}, function () {\n${s.code}\n}],`)
    .join("\n");
  return `${TESTHARNESS}\nconst WPT_FILES = {\n${files}\n};\n`;
}

const sources = wptSources();

/** The function: one file per request (`?file=`). */
const GUEST = `${wptFilesProgram(sources)}
export default {
  async fetch(request) {
    const [title, body] = WPT_FILES[new URL(request.url).searchParams.get("file")];
    return Response.json(await runWpt(title, body));
  },
};`;

/** The same files under Deno, one process for all: the results as one JSON line. */
const DENO_PROGRAM = `${wptFilesProgram(sources)}
const results = {};
for (const [file, [title, body]] of Object.entries(WPT_FILES)) results[file] = await runWpt(title, body);
console.log(JSON.stringify(results));
`;

let host: IsolateHost;
beforeAll(async () => {
  const { code } = await compileFunction({ "index.js": GUEST }, "index.js", {
    maxBundleBytes: 10 * 1024 * 1024,
  });
  host = await testSandbox().createHost({ program: { code, filename: "index.js" }, limits: LIMITS, env: {} });
});
afterAll(() => host.dispose());

const seen = new Map<string, WptResult>();
afterAll(() => {
  const results = [...seen.values()];
  const passed = results.reduce((n, r) => n + passing(r).length, 0);
  const subtests = results.reduce((n, r) => n + r.tests.length, 0);
  console.info(`dom/events + dom/abort in an isolate: ${passed}/${subtests} subtests passed`);
});

async function runInIsolate(file: string): Promise<WptResult> {
  const url = `https://wpt.example/?file=${encodeURIComponent(file)}`;
  const result = JSON.parse(await text(await host.invoke(request(url), recordingIO()))) as WptResult;
  seen.set(file, result);
  return result;
}

describe("WPT dom/events and dom/abort in an isolate", () => {
  it("vendors a floor for every file and a file for every floor", () => {
    expect(sources.map((s) => s.file).sort()).toEqual(Object.keys(FLOORS).sort());
  });
  for (const { file } of sources) {
    it(`passes at least ${FLOORS[file]} subtests of ${file}`, async () => {
      const result = await runInIsolate(file);
      // The list the floors are checked against.
      console.info(`${file}: ${report(result)}`);
      expect(passing(result).length, `${file} fell below its floor`).toBeGreaterThanOrEqual(FLOORS[file]!);
    });
  }
});

const missing = denoMissing();
if (missing) console.warn(`WPT dom under Deno skipped: ${missing}`);

/**
 * The reference: the same files and harness under Deno. Every subtest Deno passes passes
 * here too; what Deno fails is printed (some are WPT's own expectations that differ from the
 * DOM Standard for a target without parents: see FLOORS).
 */
describe.skipIf(missing !== null)("WPT dom/events and dom/abort under Deno", () => {
  it("passes here every subtest Deno passes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-wpt-dom-"));
    try {
      const program = join(dir, "wpt-dom.js");
      writeFileSync(program, DENO_PROGRAM);
      const run = await runDeno(["run", "--no-prompt", program], {
        cwd: dir,
        env: denoEnv(join(dir, "deno-dir")),
      });
      expect(run.code, run.output).toBe(0);
      const deno = JSON.parse(run.output.trim().split("\n").at(-1)!) as Record<string, WptResult>;
      const missed: string[] = [];
      const total = Object.values(deno).reduce((n, r) => n + r.tests.length, 0);
      const passed = Object.values(deno).reduce((n, r) => n + passing(r).length, 0);
      console.info(`dom/events + dom/abort under Deno: ${passed}/${total} subtests passed`);
      for (const { file } of sources) {
        console.info(`Deno ${file}: ${report(deno[file]!)}`);
        const here = new Set(passing(seen.get(file) ?? (await runInIsolate(file))));
        missed.push(
          ...passing(deno[file]!)
            .filter((name) => !here.has(name))
            .map((name) => `${file}: ${name}`),
        );
      }
      expect(missed).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
