import { createHmac, generateKeyPairSync, sign } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { Tessera, WebhookVerificationError } from "../../../clients/typescript/src/index.ts";

/**
 * The reference vectors of Standard Webhooks' own JavaScript library: the message, secret and
 * signature of its "sign function works" test, and the cases of its verification tests.
 * Source: https://github.com/standard-webhooks/standard-webhooks,
 * libraries/javascript/src/webhook.test.ts.
 */
const VECTOR = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};
const AT_VECTOR = { now: VECTOR.timestamp * 1000 };
const headersOf = (signature: string, timestamp = VECTOR.timestamp, id = VECTOR.id) => ({
  "webhook-id": id,
  "webhook-timestamp": String(timestamp),
  "webhook-signature": signature,
});

const { verify } = Tessera.webhooks;

describe("verifying webhooks: Standard Webhooks v1 (HMAC-SHA256)", () => {
  it("signs the reference vector as the reference library does, and verifies it", async () => {
    expect(await Tessera.webhooks.sign(VECTOR.payload, VECTOR, VECTOR.secret)).toBe(VECTOR.signature);
    const event = await verify(VECTOR.payload, headersOf(VECTOR.signature), VECTOR.secret, AT_VECTOR);
    expect(event).toEqual({ test: 2432232314 });
  });

  it("takes the secret with or without its whsec_ prefix, the body as text or bytes, headers in any case or as Headers", async () => {
    const bare = VECTOR.secret.slice("whsec_".length);
    await expect(verify(VECTOR.payload, headersOf(VECTOR.signature), bare, AT_VECTOR)).resolves.toBeDefined();
    const bytes = new TextEncoder().encode(VECTOR.payload);
    const shouting = Object.fromEntries(
      Object.entries(headersOf(VECTOR.signature)).map(([k, v]) => [k.toUpperCase(), v]),
    );
    await expect(verify(bytes, shouting, VECTOR.secret, AT_VECTOR)).resolves.toBeDefined();
    await expect(
      verify(bytes.buffer, new Headers(headersOf(VECTOR.signature)), VECTOR.secret, AT_VECTOR),
    ).resolves.toBeDefined();
  });

  it("accepts a header of several signatures when one matches (a rotation), ignoring other versions", async () => {
    const signatures = [
      "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
      "v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
      VECTOR.signature,
      "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
    ].join(" ");
    await expect(
      verify(VECTOR.payload, headersOf(signatures), VECTOR.secret, AT_VECTOR),
    ).resolves.toBeDefined();
    // A receiver in the middle of its own rotation holds two secrets: either verifies.
    const other = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    await expect(
      verify(VECTOR.payload, headersOf(VECTOR.signature), [other, VECTOR.secret], AT_VECTOR),
    ).resolves.toBeDefined();
  });

  it.each([
    [
      "a missing webhook-id",
      { "webhook-timestamp": String(VECTOR.timestamp), "webhook-signature": VECTOR.signature },
    ],
    ["a missing webhook-timestamp", { "webhook-id": VECTOR.id, "webhook-signature": VECTOR.signature }],
    [
      "a missing webhook-signature",
      { "webhook-id": VECTOR.id, "webhook-timestamp": String(VECTOR.timestamp) },
    ],
    ["a timestamp that is not a number", { ...headersOf(VECTOR.signature), "webhook-timestamp": "hello" }],
    ["an invalid signature", headersOf("v1,dawfeoifkpqwoekfpqoekf")],
    ["a partial signature", headersOf(VECTOR.signature.slice(0, 8))],
    ["an empty signature", headersOf("v1,")],
    ["another message id", headersOf(VECTOR.signature, VECTOR.timestamp, "msg_other")],
  ])("refuses %s", async (_, headers) => {
    await expect(verify(VECTOR.payload, headers, VECTOR.secret, AT_VECTOR)).rejects.toBeInstanceOf(
      WebhookVerificationError,
    );
  });

  it("refuses a tampered body and the wrong secret", async () => {
    const tampered = VECTOR.payload.replace("2432232314", "2432232315");
    await expect(verify(tampered, headersOf(VECTOR.signature), VECTOR.secret, AT_VECTOR)).rejects.toThrow(
      "No signature matches",
    );
    const wrong = `whsec_${Buffer.alloc(32, 1).toString("base64")}`;
    await expect(verify(VECTOR.payload, headersOf(VECTOR.signature), wrong, AT_VECTOR)).rejects.toThrow(
      WebhookVerificationError,
    );
  });

  it("refuses a timestamp more than five minutes old or ahead, and takes a tolerance of its own", async () => {
    const headers = headersOf(VECTOR.signature);
    const fiveMinutes = 5 * 60 * 1000;
    for (const now of [AT_VECTOR.now + fiveMinutes + 1000, AT_VECTOR.now - fiveMinutes - 1000]) {
      await expect(verify(VECTOR.payload, headers, VECTOR.secret, { now })).rejects.toThrow(/too (old|new)/);
    }
    await expect(
      verify(VECTOR.payload, headers, VECTOR.secret, { now: AT_VECTOR.now + fiveMinutes }),
    ).resolves.toBeDefined();
    const late = { now: AT_VECTOR.now + 20 * 60 * 1000, toleranceSeconds: 30 * 60 };
    await expect(verify(VECTOR.payload, headers, VECTOR.secret, late)).resolves.toBeDefined();
  });

  it("verifies what the standardwebhooks package signs now, with a fresh secret", async () => {
    const secret = `whsec_${Buffer.alloc(32, 42).toString("base64")}`;
    const now = new Date();
    const payload = JSON.stringify({
      id: "evt_1",
      object: "event",
      type: "contact.created",
      data: { object: {} },
    });
    const signature = new Webhook(secret).sign("evt_1", now, payload);
    const event = await verify(
      payload,
      headersOf(signature, Math.floor(now.getTime() / 1000), "evt_1"),
      secret,
    );
    expect(event.type).toBe("contact.created");
  });
});

describe("verifying webhooks: Standard Webhooks v1a (ed25519)", () => {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const raw = Buffer.from(publicKey.export({ format: "jwk" }).x!, "base64url");
  const whpk = `whpk_${raw.toString("base64")}`;
  const payload =
    '{"id":"evt_2","object":"event","type":"invoice.paid","timestamp":"2026-11-23T05:36:48Z","data":{"object":{}}}';
  const timestamp = Math.floor(Date.now() / 1000);
  const signed = Buffer.from(`evt_2.${timestamp}.${payload}`);
  const v1a = `v1a,${sign(null, signed, privateKey).toString("base64")}`;

  it("verifies a signature of the whpk_ public key's private key", async () => {
    const event = await verify(payload, headersOf(v1a, timestamp, "evt_2"), whpk);
    expect(event.type).toBe("invoice.paid");
  });

  it("refuses another key's signature, a v1 signature, and a tampered body", async () => {
    const other = generateKeyPairSync("ed25519").privateKey;
    const forged = `v1a,${sign(null, signed, other).toString("base64")}`;
    await expect(verify(payload, headersOf(forged, timestamp, "evt_2"), whpk)).rejects.toThrow(
      WebhookVerificationError,
    );
    const hmac = `v1,${createHmac("sha256", raw).update(signed).digest("base64")}`;
    await expect(verify(payload, headersOf(hmac, timestamp, "evt_2"), whpk)).rejects.toThrow(
      WebhookVerificationError,
    );
    await expect(
      verify(payload.replace("paid", "void"), headersOf(v1a, timestamp, "evt_2"), whpk),
    ).rejects.toThrow(WebhookVerificationError);
  });
});
