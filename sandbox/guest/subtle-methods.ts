/** The SubtleCrypto methods the guest forwards to the host's WebCrypto (the host checks the name too). */
export const SUBTLE_METHODS = [
  "encrypt",
  "decrypt",
  "sign",
  "verify",
  "digest",
  "generateKey",
  "deriveKey",
  "deriveBits",
  "importKey",
  "exportKey",
  "wrapKey",
  "unwrapKey",
] as const;
