import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  type KeyObject,
} from "node:crypto";

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com, "Signature scheme"):
 * the signed content is `{webhook-id}.{webhook-timestamp}.{body}`; `v1` is
 * HMAC-SHA256 keyed with the base64-decoded part of a `whsec_` secret, `v1a` is
 * ed25519 with a `whsk_` private key whose `whpk_` public key receivers hold.
 */

export const SIGNING_SCHEMES = ["v1", "v1a"] as const;
export type SigningScheme = (typeof SIGNING_SCHEMES)[number];

export const SYMMETRIC_PREFIX = "whsec_";
export const PRIVATE_KEY_PREFIX = "whsk_";
export const PUBLIC_KEY_PREFIX = "whpk_";
const SYMMETRIC_KEY_BYTES = 32;

/** What a new endpoint's secret is: `signing` signs (kept sealed); `shown` is what the owner is given. */
export interface GeneratedSecret {
  /** `whsec_…` (v1) or `whsk_…` (v1a): signs deliveries, stored sealed. */
  signing: string;
  /** `whsec_…` (v1, the same secret) or `whpk_…` (v1a, the public key receivers verify with). */
  shown: string;
}

/**
 * A new random signing secret.
 *
 * @example
 *   generateSecret("v1");  // { signing: "whsec_…", shown: "whsec_…" }
 *   generateSecret("v1a"); // { signing: "whsk_…",  shown: "whpk_…" }
 */
export function generateSecret(scheme: SigningScheme): GeneratedSecret {
  if (scheme === "v1") {
    const secret = SYMMETRIC_PREFIX + randomBytes(SYMMETRIC_KEY_BYTES).toString("base64");
    return { signing: secret, shown: secret };
  }
  const { privateKey } = generateKeyPairSync("ed25519");
  const seed = Buffer.from(privateKey.export({ format: "jwk" }).d!, "base64url");
  const signing = PRIVATE_KEY_PREFIX + seed.toString("base64");
  return { signing, shown: publicKeyOf(signing) };
}

/** The secret the endpoint's owner may see: the secret itself for v1, the public key for v1a. */
export function shownSecret(signing: string): string {
  return signing.startsWith(PRIVATE_KEY_PREFIX) ? publicKeyOf(signing) : signing;
}

/** `whpk_` + base64 of the raw 32-byte ed25519 public key of a `whsk_` private key. */
export function publicKeyOf(privateKey: string): string {
  const x = createPublicKey(ed25519PrivateKey(privateKey)).export({ format: "jwk" }).x!;
  return PUBLIC_KEY_PREFIX + Buffer.from(x, "base64url").toString("base64");
}

export interface SignatureInput {
  /** Plaintext signing secrets (`whsec_…` or `whsk_…`): the current one, and the previous during rotation. */
  secrets: readonly string[];
  /** The message id (`webhook-id`), the event id. */
  id: string;
  /** Unix seconds of this attempt (`webhook-timestamp`). */
  timestamp: number;
  /** The exact body bytes sent. */
  body: string;
}

/**
 * The `webhook-signature` header value: one `v1,<base64>` or `v1a,<base64>` per
 * secret, space-separated (receivers accept a message when any one verifies).
 *
 * @example
 *   signatureHeader({ secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
 *     id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1614265330, body: '{"test": 2432232314}' });
 *   // "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
 */
export function signatureHeader(input: SignatureInput): string {
  if (input.secrets.length === 0) throw new Error("no signing secret");
  const content = Buffer.from(`${input.id}.${input.timestamp}.${input.body}`, "utf8");
  return input.secrets.map((secret) => signOne(secret, content)).join(" ");
}

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/**
 * The three Standard Webhooks headers for one attempt, with its timestamp taken from `now`.
 *
 * @example
 *   const headers = signedHeaders({ secrets, id: event.id, now: clock.now(), body });
 */
export function signedHeaders(input: {
  secrets: readonly string[];
  id: string;
  now: Date;
  body: string;
}): SignedHeaders {
  const timestamp = Math.floor(input.now.getTime() / 1000);
  return {
    "webhook-id": input.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatureHeader({
      secrets: input.secrets,
      id: input.id,
      timestamp,
      body: input.body,
    }),
  };
}

function signOne(secret: string, content: Buffer): string {
  if (secret.startsWith(SYMMETRIC_PREFIX)) {
    const key = Buffer.from(secret.slice(SYMMETRIC_PREFIX.length), "base64");
    return `v1,${createHmac("sha256", key).update(content).digest("base64")}`;
  }
  if (secret.startsWith(PRIVATE_KEY_PREFIX)) {
    return `v1a,${sign(null, content, ed25519PrivateKey(secret)).toString("base64")}`;
  }
  throw new Error("unknown signing secret format (expected whsec_ or whsk_)");
}

// A raw ed25519 seed wrapped as PKCS#8 DER (RFC 8410, section 7): this fixed prefix, then the 32 bytes.
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
// Parsing a key costs ~8× the signature itself, and workers sign with the same few keys over and
// over: parsed keys are kept, a bounded number (an in-memory cache of derived values, no I/O).
const MAX_CACHED_KEYS = 1_000;
const parsedKeys = new Map<string, KeyObject>();

function ed25519PrivateKey(secret: string): KeyObject {
  const cached = parsedKeys.get(secret);
  if (cached) return cached;
  const seed = Buffer.from(secret.slice(PRIVATE_KEY_PREFIX.length), "base64");
  if (seed.length !== 32) throw new Error("a whsk_ key holds a 32-byte ed25519 seed");
  const key = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: "der",
    type: "pkcs8",
  });
  if (parsedKeys.size >= MAX_CACHED_KEYS) parsedKeys.clear();
  parsedKeys.set(secret, key);
  return key;
}
