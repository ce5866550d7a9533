import { TesseraError, WebhookVerificationError } from "./core/errors.ts";
import type { Event } from "./generated/types.ts";

/** Request headers as a `Headers`, or as Node's `req.headers` (names in any case). */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

export interface WebhookVerifyOptions {
  /** How far `webhook-timestamp` may be from now, either way, in seconds. Default 300 (Standard Webhooks). */
  toleranceSeconds?: number;
  /** Now, in ms since the epoch (a test's fixed clock). */
  now?: number;
}

const DEFAULT_TOLERANCE_SECONDS = 5 * 60;
const HMAC_PREFIX = "whsec_";
const PUBLIC_KEY_PREFIX = "whpk_";
const encoder = new TextEncoder();

/**
 * Verifies a delivery's Standard Webhooks signature (https://www.standardwebhooks.com, "Verifying
 * webhooks") and returns its event. `payload` is the raw body, exactly as received: verify before
 * parsing. `secret` is the endpoint's `whsec_…` (v1, HMAC-SHA256) or `whpk_…` (v1a, ed25519 public
 * key), or several during your own rotation. The header may carry several signatures (Tessera signs
 * with the previous secret too for 24 h after a rotation): one that verifies is enough.
 *
 * @example
 *   const event = await Tessera.webhooks.verify(rawBody, req.headers, process.env.TESSERA_WEBHOOK_SECRET!);
 *   if (event.type === "invoice.paid") console.log(event.data.object);
 * @throws WebhookVerificationError when a header is missing, the timestamp is too old or too new,
 *   or no signature verifies.
 */
export async function verifyWebhook(
  payload: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: WebhookVerifyOptions = {},
): Promise<Event> {
  const id = headerOf(headers, "webhook-id");
  const timestamp = headerOf(headers, "webhook-timestamp");
  const signatures = headerOf(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError("Missing webhook-id, webhook-timestamp or webhook-signature header");
  }
  checkTimestamp(timestamp, options);
  const body = typeof payload === "string" ? encoder.encode(payload) : new Uint8Array(payload);
  const signed = concat(encoder.encode(`${id}.${timestamp}.`), body);
  const offered = signatures.split(" ").map((entry) => {
    const comma = entry.indexOf(",");
    return { version: entry.slice(0, comma), signature: entry.slice(comma + 1) };
  });
  for (const one of typeof secret === "string" ? [secret] : secret) {
    if (await anyVerifies(one, signed, offered)) return parseEvent(body);
  }
  throw new WebhookVerificationError("No signature matches the secret");
}

/**
 * The `webhook-signature` value (`v1,<base64>`) Tessera would send for a `whsec_` secret: to test
 * your own receiver.
 */
export async function signWebhook(
  payload: string,
  message: { id: string; timestamp: number },
  secret: string,
): Promise<string> {
  const signed = encoder.encode(`${message.id}.${message.timestamp}.${payload}`);
  return `v1,${toBase64(await hmac(secret, signed))}`;
}

/** `Tessera.webhooks` and `client.webhooks`. */
export const webhooks = { verify: verifyWebhook, sign: signWebhook } as const;

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return typeof value === "string" ? value : value.join(" ");
  }
  return undefined;
}

function checkTimestamp(timestamp: string, options: WebhookVerifyOptions): void {
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError("Invalid webhook-timestamp");
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  const sent = Number(timestamp);
  // Both ways: a replay of an old message, and a timestamp from the future (Standard Webhooks, "Replay attacks").
  if (now - sent > tolerance) throw new WebhookVerificationError("Message timestamp too old");
  if (sent - now > tolerance) throw new WebhookVerificationError("Message timestamp too new");
}

async function anyVerifies(
  secret: string,
  signed: Uint8Array<ArrayBuffer>,
  offered: Array<{ version: string; signature: string }>,
): Promise<boolean> {
  if (secret.startsWith(PUBLIC_KEY_PREFIX)) {
    const key = await crypto.subtle.importKey(
      "raw",
      fromBase64(secret.slice(PUBLIC_KEY_PREFIX.length), "secret"),
      { name: "Ed25519" },
      false,
      ["verify"],
    );
    for (const { version, signature } of offered) {
      const bytes = version === "v1a" ? fromBase64OrNull(signature) : null;
      if (bytes && (await crypto.subtle.verify({ name: "Ed25519" }, key, bytes, signed))) return true;
    }
    return false;
  }
  const expected = await hmac(secret, signed);
  let matched = false;
  for (const { version, signature } of offered) {
    const bytes = version === "v1" ? fromBase64OrNull(signature) : null;
    // Every candidate is compared in full: how many matched is not timed.
    if (bytes && timingSafeEqual(expected, bytes)) matched = true;
  }
  return matched;
}

/** HMAC-SHA256 keyed with a `whsec_` secret's base64-decoded bytes (the prefix is optional, as in the reference libraries). */
async function hmac(secret: string, content: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const raw = fromBase64(
    secret.startsWith(HMAC_PREFIX) ? secret.slice(HMAC_PREFIX.length) : secret,
    "secret",
  );
  const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, content));
}

/** Equal bytes, in time that depends on the length only. */
function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= a[index]! ^ b[index]!;
  return difference === 0;
}

function parseEvent(body: Uint8Array): Event {
  try {
    return JSON.parse(new TextDecoder().decode(body)) as Event;
  } catch (cause) {
    throw new WebhookVerificationError("The payload is not JSON", { cause });
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(a.length + b.length);
  bytes.set(a);
  bytes.set(b, a.length);
  return bytes;
}

function fromBase64(text: string, what: string): Uint8Array<ArrayBuffer> {
  const bytes = fromBase64OrNull(text);
  if (!bytes || bytes.length === 0) throw new TesseraError(`The webhook ${what} is not valid base64`);
  return bytes;
}

function fromBase64OrNull(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}
