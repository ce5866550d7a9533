import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * Seals secrets at rest (webhook signing secrets) with a key derived from
 * TESSERA_SECRET: AES-256-GCM, so a tampered value fails to open instead of
 * decrypting to garbage. Pure computation; the caller owns the stored string.
 *
 * @example
 *   const box = createSecretBox(config.secret);
 *   const sealed = box.seal("whsec_…"); // "v1.<iv>.<ciphertext+tag>"
 *   box.open(sealed); // "whsec_…"
 */
export interface SecretBox {
  seal(plaintext: string): string;
  /** Throws a plain Error when the value is malformed, tampered with, or sealed under another key. */
  open(sealed: string): string;
}

const VERSION = "v1";
const IV_BYTES = 12; // the GCM nonce size NIST SP 800-38D recommends
const TAG_BYTES = 16;

export function createSecretBox(secret: string): SecretBox {
  if (!secret) throw new Error("a secret box needs a non-empty secret");
  const key = Buffer.from(hkdfSync("sha256", secret, "tessera", "secret-box v1", 32));
  return {
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}.${iv.toString("base64url")}.${body.toString("base64url")}`;
    },
    open(sealed) {
      const parts = sealed.split(".");
      if (parts.length !== 3 || parts[0] !== VERSION) throw new Error("not a sealed value of this version");
      const iv = Buffer.from(parts[1]!, "base64url");
      const body = Buffer.from(parts[2]!, "base64url");
      if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new Error("malformed sealed value");
      const decipher = createDecipheriv("aes-256-gcm", key, iv);
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      try {
        const plain = Buffer.concat([
          decipher.update(body.subarray(0, body.length - TAG_BYTES)),
          decipher.final(),
        ]);
        return plain.toString("utf8");
      } catch {
        // Do not chain the cause: it adds nothing and the message must not vary with the input.
        throw new Error("sealed value failed authentication (tampered, or sealed under another key)");
      }
    },
  };
}
