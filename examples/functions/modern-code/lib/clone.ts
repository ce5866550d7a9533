/**
 * `structuredClone` (HTML, "StructuredSerializeInternal"): views keep their offset and share
 * their cloned buffer, holes stay holes, built-in objects keep their kind, cycles are kept,
 * and what cannot be cloned is a `DataCloneError`.
 */
export function clone() {
  const buffer = new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7]).buffer;
  const original = {
    view: new Uint8Array(buffer, 2, 4),
    whole: new DataView(buffer),
    // deno-lint-ignore no-sparse-arrays
    holes: [1, , 3],
    map: new Map<string, number[]>([["a", [1]]]),
    set: new Set(["x", "y"]),
    date: new Date(Date.UTC(2024, 1, 29, 12)),
    regexp: /ab+c/giu,
    error: new RangeError("outer", { cause: new Error("inner") }),
    self: undefined as unknown,
  };
  original.self = original;
  const copy = structuredClone(original);
  return {
    view: {
      bytes: [...copy.view],
      byte_offset: copy.view.byteOffset,
      shares_cloned_buffer: copy.view.buffer === copy.whole.buffer,
      buffer_copied: copy.view.buffer !== buffer,
      buffer_bytes: copy.whole.byteLength,
    },
    holes: { length: copy.holes.length, has_1: 1 in copy.holes, values: copy.holes },
    map: [...copy.map],
    set: [...copy.set],
    date: copy.date.toISOString(),
    regexp: { source: copy.regexp.source, flags: copy.regexp.flags },
    error: {
      is_range_error: copy.error instanceof RangeError,
      name: copy.error.name,
      message: copy.error.message,
      cause: String(copy.error.cause),
    },
    cycle_kept: copy.self === copy,
    transferred: transfer(),
    uncloneable: {
      weak_map: cloneError(new WeakMap()),
      promise: cloneError(Promise.resolve(1)),
      function: cloneError(() => 1),
    },
  };
}

/** A buffer in `transfer` arrives with its bytes, and the source is detached (empty, `detached`). */
function transfer() {
  const source = new Uint8Array([1, 2, 3, 4]).buffer;
  const moved = [...new Uint8Array(structuredClone(source, { transfer: [source] }))];
  return { moved, source_length: source.byteLength, source_detached: source.detached };
}

function cloneError(value: unknown): string {
  try {
    structuredClone(value);
    return "cloned";
  } catch (error) {
    return (error as Error).name;
  }
}
