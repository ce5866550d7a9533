import structuredCloneImpl from "@ungap/structured-clone";
import { DOMException } from "./dom-exception.ts";

/** HTML structuredClone, from @ungap/structured-clone; what it cannot clone is a DataCloneError. */
export function structuredClone(value: unknown, options?: { transfer?: unknown[] }): unknown {
  void options;
  try {
    return structuredCloneImpl(value);
  } catch (error) {
    throw new DOMException((error as Error).message, "DataCloneError");
  }
}
