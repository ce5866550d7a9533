/**
 * Where a module is, as a path below the function's folder: `file:` URLs differ between a
 * checkout and a deployment (`file:///index.ts`), the part below the folder does not.
 */
const ROOT = new URL("../", import.meta.url).href;

/** `file:///…/modern-code/lib/format.ts` → `lib/format.ts`. */
export function belowRoot(url: string): string {
  return url.startsWith(ROOT) ? url.slice(ROOT.length) : url;
}

/** This module's own `import.meta`, as the entry reports it beside its own. */
export function libMeta(): { url: string; main: boolean } {
  return { url: belowRoot(import.meta.url), main: import.meta.main };
}
