/**
 * Top-level await in a module the entry imports: the entry's body runs after this module's
 * awaits are done, as under Deno. `evaluated` records the order the modules finished in.
 */
export const evaluated: string[] = [];

const loaded = await Promise.resolve({ region: "eu-west", retries: 3 });
evaluated.push("lib/top-level.ts");

export const settings = Object.freeze({ ...loaded, loadedBy: "top-level await" });

// A key imported once, when the function starts, for every request after.
const raw = new TextEncoder().encode("modern-code's signing key");
const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode("started"));
export const startedMac = [...new Uint8Array(mac)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
