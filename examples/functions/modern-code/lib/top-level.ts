/**
 * Top-level await in a module the entry imports: the entry's body runs after this module's
 * awaits are done, as under Deno. `evaluated` records the order the modules finished in.
 */
export const evaluated: string[] = [];

const loaded = await Promise.resolve({ region: "eu-west", retries: 3 });
evaluated.push("lib/top-level.ts");

export const settings = Object.freeze({ ...loaded, loadedBy: "top-level await" });
