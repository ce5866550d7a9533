/**
 * WebCrypto: an HS256 JSON Web Token (RFC 7519, signed as RFC 7515 says) made and checked with
 * `crypto.subtle`, and the `InvalidAccessError` of exporting a key made non-extractable.
 */
const SECRET = new TextEncoder().encode("a-fixed-secret-for-the-example-only");
const HEADER = { alg: "HS256", typ: "JWT" };
const PAYLOAD = { sub: "user_42", org: "acme", iat: 1714564800 };

export async function webCrypto() {
  const key = await crypto.subtle.importKey("raw", SECRET, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
  const token = await sign(key, PAYLOAD);
  const tampered = token.replace(/\.[^.]+\./, `.${base64url(JSON.stringify({ ...PAYLOAD, org: "evil" }))}.`);
  const exported = await crypto.subtle.exportKey("raw", key).then(
    () => "exported",
    (error: DOMException) => error.name,
  );
  return {
    token,
    verified: await verify(key, token),
    tampered: await verify(key, tampered),
    export_key: exported,
  };
}

async function sign(key: CryptoKey, payload: object): Promise<string> {
  const input = `${base64url(JSON.stringify(HEADER))}.${base64url(JSON.stringify(payload))}`;
  const signature = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(input));
  return `${input}.${base64url(new Uint8Array(signature))}`;
}

async function verify(key: CryptoKey, token: string): Promise<boolean> {
  const [header, payload, signature] = token.split(".");
  if (!header || !payload || !signature) return false;
  return await crypto.subtle.verify(
    "HMAC",
    key,
    fromBase64url(signature),
    new TextEncoder().encode(`${header}.${payload}`),
  );
}

function base64url(data: string | Uint8Array): string {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}
