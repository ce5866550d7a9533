import type { Store } from "../../store/index.ts";

/** `store`, counting the queries and transactions made through it (`calls()`). */
export function countingStore(store: Store): { store: Store; calls: () => number } {
  let calls = 0;
  const counted = new Proxy(store, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (name === "query" || name === "transaction") calls++;
        return Reflect.apply(value, target, args);
      };
    },
  });
  return { store: counted, calls: () => calls };
}
