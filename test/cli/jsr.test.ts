import { describe, expect, it } from "vitest";
import { parseJsrSpecifier, pickVersion, satisfies } from "../../cli/jsr.ts";

describe("jsr specifiers and version ranges", () => {
  it("parses scope, name, range and subpath", () => {
    expect(parseJsrSpecifier("jsr:@std/path@^1.0.0/join")).toEqual({
      scope: "std",
      name: "path",
      range: "^1.0.0",
      subpath: "/join",
    });
    expect(parseJsrSpecifier("jsr:/@std/path")).toEqual({
      scope: "std",
      name: "path",
      range: undefined,
      subpath: "",
    });
    expect(parseJsrSpecifier("jsr:std/path")).toBeUndefined();
  });

  it.each([
    ["1.2.3", "1.2.3", true],
    ["1.2.4", "1.2.3", false],
    ["1.9.0", "^1.2.3", true],
    ["2.0.0", "^1.2.3", false],
    ["1.2.2", "^1.2.3", false],
    ["0.2.9", "^0.2.3", true],
    ["0.3.0", "^0.2.3", false],
    ["0.0.4", "^0.0.3", false],
    ["0.9.0", "^0", true],
    ["1.2.9", "~1.2.3", true],
    ["1.3.0", "~1.2.3", false],
    ["1.9.9", "1", true],
    ["2.0.0", "1", false],
    ["1.2.7", "1.2", true],
    ["1.3.0", "1.2", false],
    ["5.0.0", ">=1.2.0", true],
    ["1.1.0", ">=1.2.0", false],
    ["3.1.4", "*", true],
    ["2.0.0-rc.1", "*", false],
    ["2.0.0-rc.2", "^2.0.0-rc.1", true],
    ["2.1.0-rc.1", "^2.0.0-rc.1", false],
  ])("%s satisfies %s: %s", (version, range, expected) => {
    expect(satisfies(version, range)).toBe(expected);
  });

  it("picks the highest non-yanked match, and the latest when no range is given", () => {
    const meta = {
      latest: "1.1.0",
      versions: { "1.0.0": {}, "1.1.0": {}, "1.2.0": { yanked: true }, "2.0.0-beta.1": {} },
    };
    expect(pickVersion(meta, "^1")).toBe("1.1.0");
    expect(pickVersion(meta, undefined)).toBe("1.1.0");
    expect(pickVersion({ versions: meta.versions }, undefined)).toBe("1.1.0");
    expect(pickVersion(meta, "^3")).toBeUndefined();
  });
});
