import { describe, expect, it } from "vitest";
import { answerText, parseGuestOp } from "../../sandbox/protocol.ts";

/** Guest→host messages are checked before the host acts on them: a hostile guest sends anything. */
describe("parseGuestOp", () => {
  const headers = JSON.stringify([["content-type", "application/json"]]);

  it("takes a well-formed respond with a text, byte, streamed or empty body, headers parsed", () => {
    for (const body of ['{"ok":true}', new Uint8Array([1, 2]), true, null]) {
      expect(parseGuestOp("respond", [201, "Created", headers, body, false])).toEqual({
        op: "respond",
        args: [201, "Created", [["content-type", "application/json"]], body, false],
      });
    }
  });

  it.each([
    ["a status below 200", [199, "", headers, null, true]],
    ["a status above 599", [600, "", headers, null, true]],
    ["a fractional status", [200.5, "", headers, null, true]],
    ["a status text over 1024 characters", [200, "x".repeat(1025), headers, null, true]],
    ["headers that are not JSON", [200, "", "[[", null, true]],
    ["headers as an array instead of JSON text", [200, "", [["a", "b"]], null, true]],
    ["a header pair of three", [200, "", JSON.stringify([["a", "b", "c"]]), null, true]],
    ["a header value that is not a string", [200, "", JSON.stringify([["a", 1]]), null, true]],
    ["more than 1000 headers", [200, "", JSON.stringify(Array(1001).fill(["a", "b"])), null, true]],
    ["a body of another type", [200, "", headers, { length: 1 }, true]],
    ["false as the body", [200, "", headers, false, true]],
    ["a missing done flag", [200, "", headers, null]],
  ])("refuses a respond with %s", (_, args) => {
    expect(() => parseGuestOp("respond", args)).toThrow(/invalid bridge message for respond/);
  });

  it("checks the other ops by their zod tuples, and refuses unknown ones", () => {
    expect(parseGuestOp("log", ["warn", "careful", "ignored extra"])).toEqual({
      op: "log",
      args: ["warn", "careful"],
    });
    expect(() => parseGuestOp("log", ["shout", "x"])).toThrow(/invalid bridge message for log/);
    expect(() => parseGuestOp("random", [100_000])).toThrow(/invalid bridge message for random/);
    expect(() => parseGuestOp("exec", [])).toThrow(/^invalid bridge message$/);
    expect(() => parseGuestOp("__proto__", [])).toThrow(/^invalid bridge message$/);
  });
});

/** A "request" entry's return value: a handler's at-once answer, checked as `respond` is. */
describe("answerText", () => {
  const headers = JSON.stringify([["content-type", "text/plain"]]);

  it("reads status, status text, headers and a text body that may hold newlines", () => {
    expect(answerText(`[201,"Created"]\n${headers}\nline one\nline two`)).toEqual([
      201,
      "Created",
      [["content-type", "text/plain"]],
      "line one\nline two",
      true,
    ]);
    expect(answerText(`[204,""]\n[]\n`)).toEqual([204, "", [], null, true]);
  });

  it.each([
    ["no newline", `[200,""]`],
    ["one newline", `[200,""]\n[]`],
    ["a head that is not JSON", `[200,\n[]\nbody`],
    ["a head of three", `[200,"",1]\n[]\nbody`],
    ["a status out of range", `[700,""]\n[]\nbody`],
    ["headers that are not pairs", `[200,""]\n{"a":1}\nbody`],
  ])("refuses %s", (_, text) => {
    expect(answerText(text)).toBeUndefined();
  });
});
