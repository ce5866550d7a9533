/** Loaded by a dynamic `import()` of the entry's top level, through the import map. */
import { evaluated } from "./top-level.ts";

const label = await Promise.resolve("lazy");
evaluated.push("lib/lazy.ts");

export const lazy = `${label}, after ${evaluated.length - 1} module(s)`;
