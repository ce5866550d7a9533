import { describe, expect, it } from "vitest";
import { compareJson, compareText, jsonValues } from "./compare.ts";
import { codeBlocks } from "./markdown.ts";

/** The docs test's own rules: what a shown output promises, and what it leaves open. */
describe("comparing shown output with what a command printed", () => {
  it("holds a JSON page to its keys, types and promised values, not to ids, times or counts", () => {
    const shown = { id: "inv_Abc123XYZ", object: "invoice", status: "paid", amount: 10, "…": "…" };
    expect(
      compareJson(shown, { id: "inv_Other99", object: "invoice", status: "paid", amount: 7, x: 1 }),
    ).toEqual([]);
    expect(compareJson(shown, { id: "inv_1", object: "invoice", status: "open", amount: 1 })).toEqual([
      '$.status: "paid" is shown, got "open"',
    ]);
    expect(compareJson(shown, { id: "inv_1", object: "invoice", amount: 1 })).toEqual([
      "$.status: shown, missing",
    ]);
    expect(compareJson({ amount: 10 }, { amount: "10" })).toEqual(["$.amount: number is shown, got string"]);
    expect(compareJson({ data: [{ a: 1 }, { "…": "…" }] }, { data: [] })).toEqual([
      "$.data: 1 items shown, got 0",
    ]);
    expect(compareJson({ note: "Dear …" }, { note: 3 })).toEqual(["$.note: a string is shown, got number"]);
  });

  it("finds shown text lines in order, with ids, numbers, times and … loose", () => {
    const printed =
      "deployed reminders v3 (2 files, bundle 1800 bytes)\n2026-11-25T09:14:02.120Z log   req_Zz9yX8wV7u reminding 4 clients\n";
    expect(compareText("deployed reminders v1 (1 file, bundle 1732 bytes)", printed)).toEqual([
      "not in the output: deployed reminders v1 (1 file, bundle 1732 bytes)",
    ]);
    expect(
      compareText(
        "deployed reminders v1 (2 files, bundle 1732 bytes)\n… log   req_… reminding 2 clients",
        printed,
      ),
    ).toEqual([]);
    expect(
      compareText("… reminding 2 clients\ndeployed reminders v1 (2 files, bundle 1 bytes)", printed),
    ).toHaveLength(1);
  });

  it("reads JSON values printed back to back, passing over other lines", () => {
    expect(jsonValues('{"a":"x\\"}"}{"b":[1,2]}\nnot json\n3')).toEqual([{ a: 'x"}' }, { b: [1, 2] }, 3]);
  });

  it("takes directives from the comment right above a block, and asks a skip for its reason", () => {
    const page = [
      "<!-- doctest: skip — needs your own database -->",
      "```sh",
      "psql",
      "```",
      '<!-- doctest: run "npm start" background until "listening on" -->',
      "```sh",
      "npm ci && npm start",
      "```",
      "```text",
      "listening on …",
      "```",
    ].join("\n");
    const [skipped, started] = codeBlocks(page);
    expect(skipped).toMatchObject({ skip: "needs your own database", outputs: [] });
    expect(started).toMatchObject({
      replacement: "npm start",
      background: "listening on",
      outputs: [{ lang: "text" }],
    });
    expect(() => codeBlocks("<!-- doctest: skip -->\n```sh\nx\n```")).toThrow(/says why/);
  });

  it("runs TypeScript and Python blocks too, each with the output shown after it", () => {
    const page = [
      "```ts",
      'console.log("ts")',
      "```",
      "```text",
      "ts",
      "```",
      "<!-- doctest: skip — a receiver that waits for deliveries -->",
      "```typescript",
      "serve()",
      "```",
      "```python",
      'print("py")',
      "```",
      "```json",
      "{}",
      "```",
      "```js",
      "not run",
      "```",
    ].join("\n");
    expect(codeBlocks(page)).toMatchObject([
      { lang: "typescript", outputs: [{ lang: "text", text: "ts" }] },
      { lang: "typescript", skip: "a receiver that waits for deliveries" },
      { lang: "python", code: 'print("py")', outputs: [{ lang: "json" }] },
    ]);
    expect(() => codeBlocks('<!-- doctest: background until "x" -->\n```python\nx\n```')).toThrow(
      /for shell blocks/,
    );
  });
});
