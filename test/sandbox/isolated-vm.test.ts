import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import ivm, { ISOLATED_VM_BY_NODE, isolatedVmFor } from "../../sandbox/isolated-vm/index.ts";

/** The isolated-vm major npm installs per Node.js line (sandbox/isolated-vm/README.md). */
describe("isolated-vm for this Node.js", () => {
  const folder = new URL("../../sandbox/isolated-vm/", import.meta.url);
  const gates = readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => JSON.parse(readFileSync(new URL(`${entry.name}/package.json`, folder), "utf8")) as Gate);
  const root = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    optionalDependencies: Record<string, string>;
  };

  it.each([
    ["20.19.0", "isolated-vm-5"],
    ["20.20.2", "isolated-vm-5"],
    ["22.0.0", "isolated-vm-6"],
    ["23.11.1", "isolated-vm-6"],
    ["24.11.1", "isolated-vm-7"],
    ["26.0.0", "isolated-vm-7"],
  ])("on Node.js %s is %s", (version, name) => {
    expect(isolatedVmFor(version)).toBe(name);
  });

  it("is chosen by npm from gate packages whose engines say what the loader says", () => {
    expect(gates.map((gate) => gate.name).sort()).toEqual(Object.keys(root.optionalDependencies).sort());
    for (const line of ISOLATED_VM_BY_NODE) {
      const gate = gates.find((candidate) => Object.keys(candidate.dependencies).includes(line.name));
      expect(gate, line.name).toBeDefined();
      // The gate's lower bound is the loader's line, its upper bound the next line's.
      const above = ISOLATED_VM_BY_NODE.filter((other) => other.node > line.node).at(-1);
      const lower = line.node === 20 ? ">=20.19" : `>=${line.node}`;
      expect(gate!.engines.node).toBe(above ? `${lower} <${above.node}` : lower);
      // The alias's major is the one its name says.
      expect(gate!.dependencies[line.name]).toMatch(new RegExp(`^npm:isolated-vm@${line.name.slice(-1)}\\.`));
    }
  });

  it("has its gate installed as a copy, never a link: npm's rollback of a failed build deletes a link's target", () => {
    const lock = JSON.parse(readFileSync(new URL("../../package-lock.json", import.meta.url), "utf8")) as {
      packages: Record<string, { link?: boolean }>;
    };
    for (const gate of Object.keys(root.optionalDependencies)) {
      expect(lock.packages[`node_modules/${gate}`]?.link, gate).toBeUndefined();
    }
    const gate = gates.find((candidate) =>
      Object.keys(candidate.dependencies).includes(isolatedVmFor(process.versions.node)),
    )!;
    expect(lstatSync(new URL(`../../node_modules/${gate.name}`, import.meta.url)).isSymbolicLink()).toBe(
      false,
    );
  });

  it("is installed, and loaded, in the major that fits the running Node.js", () => {
    const name = isolatedVmFor(process.versions.node);
    const { version } = createRequire(import.meta.url)(`${name}/package.json`) as { version: string };
    expect(version.split(".")[0]).toBe(name.slice(-1));
    const isolate = new ivm.Isolate({ memoryLimit: 8 });
    try {
      expect(isolate.createContextSync().evalSync("6 * 7")).toBe(42);
    } finally {
      isolate.dispose();
    }
  });
});

interface Gate {
  name: string;
  engines: { node: string };
  dependencies: Record<string, string>;
}
