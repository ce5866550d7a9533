import { createPublicKey, verify } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  generateSecret,
  publicKeyOf,
  shownSecret,
  signatureHeader,
  signedHeaders,
} from "../../webhooks/index.ts";

const BODY = JSON.stringify({ id: "evt_1", object: "event", type: "contact.created", data: { object: {} } });

/** A Node KeyObject for a `whpk_` key: the raw 32 bytes as an ed25519 JWK. */
function publicKey(whpk: string) {
  const x = Buffer.from(whpk.slice("whpk_".length), "base64").toString("base64url");
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" });
}

describe("Standard Webhooks signing", () => {
  it("reproduces the specification's published test vector", () => {
    const header = signatureHeader({
      secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
      id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
    });
    expect(header).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("generates whsec_ secrets of 32 random bytes, different each time", () => {
    const a = generateSecret("v1");
    expect(a.signing).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.signing.slice(6), "base64")).toHaveLength(32);
    expect(a.shown).toBe(a.signing);
    expect(generateSecret("v1").signing).not.toBe(a.signing);
  });

  it("produces headers the standardwebhooks package verifies", () => {
    const { signing } = generateSecret("v1");
    const headers = signedHeaders({ secrets: [signing], id: "evt_abc", now: new Date(), body: BODY });
    expect(headers["webhook-id"]).toBe("evt_abc");
    expect(headers["webhook-timestamp"]).toMatch(/^\d+$/);
    expect(new Webhook(signing).verify(BODY, { ...headers })).toEqual(JSON.parse(BODY));
  });

  it("puts the timestamp of this attempt in Unix seconds", () => {
    const headers = signedHeaders({
      secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
      id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
      now: new Date(1614265330_999),
      body: '{"test": 2432232314}',
    });
    expect(headers).toEqual({
      "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
      "webhook-timestamp": "1614265330",
      "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    });
  });

  it("signs with both secrets during a rotation, so receivers holding either verify", () => {
    const current = generateSecret("v1").signing;
    const previous = generateSecret("v1").signing;
    const headers = signedHeaders({
      secrets: [current, previous],
      id: "evt_rot",
      now: new Date(),
      body: BODY,
    });
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(() => new Webhook(current).verify(BODY, { ...headers })).not.toThrow();
    expect(() => new Webhook(previous).verify(BODY, { ...headers })).not.toThrow();
    expect(() => new Webhook(generateSecret("v1").signing).verify(BODY, { ...headers })).toThrow();
  });

  it("fails verification when one byte of the body differs from what was signed", () => {
    const { signing } = generateSecret("v1");
    const headers = signedHeaders({ secrets: [signing], id: "evt_x", now: new Date(), body: BODY });
    expect(() => new Webhook(signing).verify(BODY.replace("contact", "Contact"), { ...headers })).toThrow();
  });

  it("signs v1a with ed25519: the whpk_ public key verifies the signature", () => {
    const secret = generateSecret("v1a");
    expect(secret.signing).toMatch(/^whsk_/);
    expect(secret.shown).toMatch(/^whpk_/);
    expect(Buffer.from(secret.signing.slice(5), "base64")).toHaveLength(32);
    expect(Buffer.from(secret.shown.slice(5), "base64")).toHaveLength(32);
    expect(publicKeyOf(secret.signing)).toBe(secret.shown);
    expect(shownSecret(secret.signing)).toBe(secret.shown);

    const header = signatureHeader({
      secrets: [secret.signing],
      id: "evt_ed",
      timestamp: 1700000000,
      body: BODY,
    });
    expect(header).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    const signature = Buffer.from(header.slice(4), "base64");
    const content = Buffer.from(`evt_ed.1700000000.${BODY}`);
    expect(verify(null, content, publicKey(secret.shown), signature)).toBe(true);
    expect(verify(null, Buffer.from(`evt_ed.1700000001.${BODY}`), publicKey(secret.shown), signature)).toBe(
      false,
    );
  });

  it("mixes schemes, one signature per secret in the given order", () => {
    const ed = generateSecret("v1a").signing;
    const mac = generateSecret("v1").signing;
    const header = signatureHeader({ secrets: [ed, mac], id: "evt_m", timestamp: 1, body: "{}" });
    expect(header.split(" ").map((part) => part.split(",")[0])).toEqual(["v1a", "v1"]);
  });

  it("refuses to sign without a secret or with an unknown kind of secret", () => {
    expect(() => signatureHeader({ secrets: [], id: "evt_1", timestamp: 1, body: "{}" })).toThrow();
    expect(() => signatureHeader({ secrets: ["sk_live_x"], id: "evt_1", timestamp: 1, body: "{}" })).toThrow(
      /unknown signing secret/,
    );
  });
});
