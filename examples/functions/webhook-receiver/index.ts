/**
 * webhook-receiver: verifies a Standard Webhooks delivery (the scheme Tessera's own
 * webhooks use) before trusting it. The signature is `v1,<base64 HMAC-SHA256 of
 * "{webhook-id}.{webhook-timestamp}.{raw body}">` keyed with the `whsec_` secret in
 * WEBHOOK_SECRET; several space-separated signatures may be sent (secret rotation).
 * Bad or missing signatures and timestamps more than 5 minutes away are 401; a good
 * delivery is 200 with the parsed event. Handler style: `Deno.serve`, secrets via
 * `Deno.env.get`, crypto via `crypto.subtle`.
 *
 * Spec: https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
 */
const TOLERANCE_S = 5 * 60;
const encoder = new TextEncoder();

Deno.serve(async (req) => {
  if (req.method !== "POST")
    return new Response("POST a webhook here\n", { status: 405, headers: { allow: "POST" } });
  const secret = Deno.env.get("WEBHOOK_SECRET");
  if (!secret?.startsWith("whsec_")) return problem(500, "WEBHOOK_SECRET is not set to a whsec_ secret");

  const body = await req.text();
  const failure = await verify(secret, req.headers, body);
  if (failure) return problem(401, failure);

  let event: { type?: unknown; data?: unknown };
  try {
    event = JSON.parse(body);
  } catch {
    return problem(400, "the body is not JSON");
  }
  return Response.json(
    { received: true, id: req.headers.get("webhook-id"), type: event.type, data: event.data },
    { headers: { "x-webhook-verified": "v1" } },
  );
});

/** Why the delivery must be refused, or null when it is authentic and fresh. */
async function verify(secret: string, headers: Headers, body: string): Promise<string | null> {
  const id = headers.get("webhook-id");
  const timestamp = headers.get("webhook-timestamp");
  const signatures = headers.get("webhook-signature");
  if (!id || !timestamp || !signatures) return "missing webhook-id, webhook-timestamp or webhook-signature";
  const sentAt = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - sentAt) > TOLERANCE_S) {
    return "timestamp outside the tolerance";
  }
  const key = await crypto.subtle.importKey(
    "raw",
    base64ToBytes(secret.slice("whsec_".length)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const expected = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, encoder.encode(`${id}.${timestamp}.${body}`)),
  );
  for (const candidate of signatures.split(" ")) {
    const [version, signature] = candidate.split(",", 2);
    if (version !== "v1" || !signature) continue;
    const given = base64ToBytes(signature);
    if (timingSafeEqual(given, expected)) return null;
  }
  return "no valid signature";
}

/** Compares every byte whatever the first difference, so timing reveals nothing. */
function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return new Uint8Array();
  }
}

function problem(status: number, detail: string): Response {
  return Response.json(
    { type: "about:blank", title: status === 401 ? "Unauthorized" : "Error", status, detail },
    { status, headers: { "content-type": "application/problem+json" } },
  );
}
