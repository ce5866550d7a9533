import { describe, expect, it } from "vitest";
import { parseEnvFile } from "../../cli/env-file.ts";

describe("a .env file for functions serve", () => {
  it("reads NAME=value lines, quotes, export, comments and blank lines", () => {
    const text = [
      "# local secrets",
      "",
      "TOKEN=abc123",
      'GREETING="hej, world" ',
      "export MODE=dev # trailing comment",
      "SINGLE='a # not a comment'",
      'MULTI="one\\ntwo"',
      "EMPTY=",
    ].join("\n");
    expect(parseEnvFile(text)).toEqual({
      TOKEN: "abc123",
      GREETING: "hej, world",
      MODE: "dev",
      SINGLE: "a # not a comment",
      MULTI: "one\ntwo",
      EMPTY: "",
    });
  });

  it("names the line of anything else, and holds names to the secrets' rule", () => {
    expect(() => parseEnvFile("OK=1\nnot a line", "fn/.env")).toThrow(/^fn\/\.env:2: expected NAME=value/);
    expect(() => parseEnvFile("1ST=x")).toThrow(/\.env:1:/);
    expect(() => parseEnvFile("BAD-NAME=x")).toThrow(/\.env:1:/);
  });
});
