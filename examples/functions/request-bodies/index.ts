/**
 * request-bodies: reads a `Request` body every way the web platform offers and
 * describes what arrived. The body kind comes from the path, the parser from the
 * standard `Request` methods: `json()`, `formData()` (both
 * `application/x-www-form-urlencoded` and `multipart/form-data`, files as `File`),
 * `arrayBuffer()` (with a SHA-256 of the bytes from `crypto.subtle.digest`) and
 * `text()`. Handler style: `export default { fetch }`.
 *
 *   POST …/json | …/form | …/binary | …/text
 */
export default {
  async fetch(req: Request): Promise<Response> {
    if (req.method !== "POST")
      return Response.json({ error: "POST a body" }, { status: 405, headers: { allow: "POST" } });
    const kind = new URL(req.url).pathname.split("/").pop();
    try {
      switch (kind) {
        case "json":
          return Response.json({ kind, value: await req.json() });
        case "form":
          return Response.json({
            kind,
            contentType: mediaType(req),
            fields: await describeForm(await req.formData()),
          });
        case "binary": {
          const bytes = new Uint8Array(await req.arrayBuffer());
          return Response.json({
            kind,
            bytes: bytes.length,
            first: [...bytes.slice(0, 4)],
            sha256: await sha256(bytes),
          });
        }
        case "text": {
          const text = await req.text();
          return Response.json({
            kind,
            characters: [...text].length,
            utf8Bytes: new TextEncoder().encode(text).length,
            text,
          });
        }
        default:
          return Response.json({ error: `unknown body kind '${kind}'` }, { status: 404 });
      }
    } catch (error) {
      // A body that does not parse as its content type says is the client's fault.
      return Response.json({ error: "unreadable body", name: (error as Error).name }, { status: 400 });
    }
  },
};

function mediaType(req: Request): string {
  return (req.headers.get("content-type") ?? "").split(";")[0]!.trim();
}

async function describeForm(form: FormData): Promise<Array<Record<string, unknown>>> {
  const fields: Array<Record<string, unknown>> = [];
  for (const [name, value] of form) {
    if (typeof value === "string") {
      fields.push({ name, value });
    } else {
      const bytes = new Uint8Array(await value.arrayBuffer());
      fields.push({
        name,
        file: value.name,
        type: value.type,
        size: value.size,
        sha256: await sha256(bytes),
      });
    }
  }
  return fields;
}

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
