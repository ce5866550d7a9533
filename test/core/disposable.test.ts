import { describe, expect, it } from "vitest";
import { disposable, Releasers } from "../../core/index.ts";

describe("Releasers", () => {
  it("releases in reverse order of registration, once", async () => {
    const released: string[] = [];
    const releasers = new Releasers();
    releasers.add("store", () => void released.push("store"));
    releasers.add("worker", async () => void released.push("worker"));
    await releasers.dispose();
    await releasers.dispose();
    expect(released).toEqual(["worker", "store"]);
    expect(() => releasers.add("late", () => undefined)).toThrow(/already disposed/);
  });

  it("releases every part when one throws, tells onError of it, then rethrows that error", async () => {
    const released: string[] = [];
    const failure = new Error("the isolates would not go");
    const heard: Array<[string, unknown]> = [];
    const releasers = new Releasers();
    releasers.add("store", () => void released.push("store"));
    releasers.add("isolates", () => Promise.reject(failure));
    releasers.add("worker", () => void released.push("worker"));
    const disposing = releasers.dispose((name, error) => heard.push([name, error]));
    await expect(disposing).rejects.toBe(failure);
    expect(released).toEqual(["worker", "store"]);
    expect(heard).toEqual([["isolates", failure]]);
  });

  it("when several parts fail, throws an AggregateError of them all in the order they failed", async () => {
    const first = new Error("the server would not close");
    const second = new Error("the store would not close");
    const releasers = new Releasers();
    releasers.add("store", () => {
      throw second;
    });
    releasers.add("server", () => Promise.reject(first));
    const thrown = await releasers.dispose().catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(AggregateError);
    expect((thrown as AggregateError).errors).toEqual([first, second]);
    expect((thrown as AggregateError).message).toBe("2 parts failed to dispose: server, store");
  });

  it("is disposed by `await using` at the end of its block", async () => {
    const released: string[] = [];
    {
      await using releasers = new Releasers();
      releasers.add("part", () => void released.push("part"));
      expect(released).toEqual([]);
    }
    expect(released).toEqual(["part"]);
  });
});

describe("disposable", () => {
  it("gives an owner a Symbol.asyncDispose that calls its dispose()", async () => {
    let disposed = 0;
    {
      await using _owner = disposable({ dispose: async () => void disposed++ });
    }
    expect(disposed).toBe(1);
  });

  it("disposes a copy that replaces dispose() through the copy's own", async () => {
    const calls: string[] = [];
    const inner = disposable({ dispose: async () => void calls.push("inner") });
    const copy = {
      ...inner,
      async dispose() {
        await inner.dispose();
        calls.push("copy");
      },
    };
    await copy[Symbol.asyncDispose]();
    expect(calls).toEqual(["inner", "copy"]);
  });

  it("passes on what dispose() throws", async () => {
    const owner = disposable({ dispose: () => Promise.reject(new Error("stuck")) });
    await expect(owner[Symbol.asyncDispose]()).rejects.toThrow("stuck");
  });
});
