/**
 * How deep a client's JSON may nest. `JSON.parse` is iterative in V8, but most walks after it
 * are not (zod, `JSON.stringify`, our own checks): a body of 100,000 `[` would overflow
 * their stack as a 500. Every walk of input stops at this depth and refuses what is deeper.
 */

/**
 * Arrays and objects a value may nest (a request body's fields, an engine state value, a
 * tool's arguments): `[[1]]` nests 2. The request body's own object is not counted.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `value` nests arrays and objects deeper than `maxDepth`. Iterative, so it is safe
 * on any depth; it stops at the first container past the limit.
 *
 * @example
 *   nestsDeeperThan([[1]], 1); // true
 *   nestsDeeperThan({ a: [1] }, 2); // false
 */
export function nestsDeeperThan(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== "object") continue;
    if (depth > maxDepth) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}
