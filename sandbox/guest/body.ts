import { Blob, File, FormData } from "./blob.ts";
import { TextDecoder, toBytes, utf8Encode } from "./encoding.ts";
import { ReadableStream, readAll, streamOf } from "./streams.ts";
import { URLSearchParams } from "./url.ts";

/**
 * Fetch Standard §5.3 "body mixin". A body is either content the platform knows
 * (`source`: buffers, form data, or text, kept as a string until someone needs its
 * UTF-8 bytes; the host takes it in one piece) or a stream; the stream of a known body
 * is made only when someone asks for `.body`.
 */
export interface BodyState {
  source: Uint8Array | string | null;
  stream: ReadableStream<Uint8Array> | null;
  used: boolean;
}

export interface ExtractedBody {
  state: BodyState;
  contentType: string | null;
}

export function emptyBody(): BodyState {
  return { source: null, stream: null, used: false };
}

export function bodyOf(bytes: Uint8Array | null): BodyState {
  return { source: bytes, stream: null, used: false };
}

/** Fetch §5.3 "extract a body". */
export function extractBody(init: unknown): ExtractedBody {
  if (init === null || init === undefined) return { state: emptyBody(), contentType: null };
  if (typeof init === "string") return known(init, "text/plain;charset=UTF-8");
  if (init instanceof URLSearchParams) {
    return known(utf8Encode(init.toString()), "application/x-www-form-urlencoded;charset=UTF-8");
  }
  if (init instanceof FormData) {
    const boundary = `----TesseraFormBoundary${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
    return known(encodeMultipart(init, boundary), `multipart/form-data; boundary=${boundary}`);
  }
  if (init instanceof Blob) return known(Blob.bytesOf(init), init.type || null);
  if (init instanceof ArrayBuffer || ArrayBuffer.isView(init)) return known(toBytes(init).slice(), null);
  if (init instanceof ReadableStream) {
    if (init.locked) throw new TypeError("The body stream is locked");
    return {
      state: { source: null, stream: init as ReadableStream<Uint8Array>, used: false },
      contentType: null,
    };
  }
  return known(String(init), "text/plain;charset=UTF-8");
}

function known(source: Uint8Array | string, contentType: string | null): ExtractedBody {
  return { state: { source, stream: null, used: false }, contentType };
}

/** The bytes of a known body (text is encoded on first use, once). */
export function sourceBytes(state: BodyState): Uint8Array | null {
  if (typeof state.source === "string") state.source = utf8Encode(state.source);
  return state.source;
}

/** Text as its UTF-8 bytes would decode: lone surrogates become U+FFFD. */
const wellFormed = (text: string): string => (text as string & { toWellFormed(): string }).toWellFormed();

export function bodyStream(state: BodyState): ReadableStream<Uint8Array> | null {
  if (!state.stream && state.source !== null) {
    state.stream = streamOf(sourceBytes(state)!);
    state.source = null;
  }
  return state.stream;
}

export function isUsed(state: BodyState): boolean {
  return state.used || Boolean((state.stream as unknown as { _disturbed?: boolean } | null)?._disturbed);
}

/** Takes the whole body, once (§5.3 "consume body"). */
export async function consume(state: BodyState): Promise<Uint8Array> {
  if (isUsed(state)) throw new TypeError("Body is unusable: Body has already been read");
  if (state.stream?.locked) throw new TypeError("Body is unusable: the body stream is locked");
  state.used = true;
  if (state.source !== null) return sourceBytes(state)!;
  if (!state.stream) return new Uint8Array(0);
  return readAll(state.stream);
}

/** The whole body as text, once: a text source is returned as is, without a UTF-8 round trip. */
async function consumeText(state: BodyState): Promise<string> {
  if (typeof state.source === "string" && !isUsed(state)) {
    state.used = true;
    return wellFormed(state.source);
  }
  return decodeText(await consume(state));
}

/** Two bodies with the same content (§5.3 "clone a body": tee the stream). */
export function cloneBody(state: BodyState): BodyState {
  if (isUsed(state)) throw new TypeError("Body has already been used");
  if (!state.stream) {
    const source = typeof state.source === "string" ? state.source : (state.source?.slice() ?? null);
    return { source, stream: null, used: false };
  }
  const [a, b] = state.stream.tee();
  state.stream = a;
  return { source: null, stream: b, used: false };
}

export const decodeText = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

export async function parseFormData(bytes: Uint8Array, contentType: string | null): Promise<FormData> {
  const type = contentType ?? "";
  const form = new FormData();
  if (/^application\/x-www-form-urlencoded/i.test(type)) {
    for (const [name, value] of new URLSearchParams(decodeText(bytes))) form.append(name, value);
    return form;
  }
  const boundary = /^multipart\/form-data\s*;.*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(type);
  if (!boundary) throw new TypeError("The body's content type is not multipart/form-data or urlencoded");
  decodeMultipart(bytes, boundary[1] ?? boundary[2]!, form);
  return form;
}

const escapeQuoted = (text: string) => text.replace(/\n/g, "%0A").replace(/\r/g, "%0D").replace(/"/g, "%22");

/** RFC 7578 multipart/form-data, as HTML §4.10.21.8 serializes it. */
function encodeMultipart(form: FormData, boundary: string): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [name, value] of form) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${escapeQuoted(name)}"`;
    if (typeof value === "string") {
      parts.push(utf8Encode(`${head}\r\n\r\n${value.replace(/\r?\n|\r/g, "\r\n")}\r\n`));
      continue;
    }
    head += `; filename="${escapeQuoted(value.name)}"\r\nContent-Type: ${value.type || "application/octet-stream"}\r\n\r\n`;
    parts.push(utf8Encode(head), Blob.bytesOf(value), utf8Encode("\r\n"));
  }
  parts.push(utf8Encode(`--${boundary}--\r\n`));
  const size = parts.reduce((n, p) => n + p.byteLength, 0);
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  outer: for (let i = from; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function decodeMultipart(bytes: Uint8Array, boundary: string, form: FormData): void {
  const delimiter = utf8Encode(`--${boundary}`);
  let at = indexOf(bytes, delimiter, 0);
  if (at < 0) throw new TypeError("Malformed multipart body: no boundary");
  for (;;) {
    at += delimiter.length;
    if (bytes[at] === 0x2d && bytes[at + 1] === 0x2d) return; // the closing "--"
    at += 2; // CRLF
    const headerEnd = indexOf(bytes, utf8Encode("\r\n\r\n"), at);
    if (headerEnd < 0) throw new TypeError("Malformed multipart body: no header end");
    const headers = decodeText(bytes.subarray(at, headerEnd));
    const next = indexOf(bytes, delimiter, headerEnd + 4);
    if (next < 0) throw new TypeError("Malformed multipart body: no closing boundary");
    const content = bytes.subarray(headerEnd + 4, next - 2);
    const disposition = /content-disposition:[^\r\n]*/i.exec(headers)?.[0] ?? "";
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined) throw new TypeError("Malformed multipart body: a part has no name");
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
    const unescape = (text: string) => text.replace(/%0A/g, "\n").replace(/%0D/g, "\r").replace(/%22/g, '"');
    if (filename === undefined) form.append(unescape(name), decodeText(content));
    else {
      const type = /content-type:\s*([^\r\n]*)/i.exec(headers)?.[1] ?? "";
      form.append(unescape(name), new File([content.slice()], unescape(filename), { type }));
    }
    at = next;
  }
}

/** Common accessors of Request and Response, on the body state each keeps. */
export abstract class Body {
  /** @internal */ abstract bodyState(): BodyState;
  abstract readonly headers: { get(name: string): string | null };

  get body(): ReadableStream<Uint8Array> | null {
    return bodyStream(this.bodyState());
  }
  get bodyUsed(): boolean {
    return isUsed(this.bodyState());
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await consume(this.bodyState());
    return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
      ? (bytes.buffer as ArrayBuffer)
      : bytes.slice().buffer;
  }
  async bytes(): Promise<Uint8Array> {
    return consume(this.bodyState());
  }
  async text(): Promise<string> {
    return consumeText(this.bodyState());
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
  async blob(): Promise<Blob> {
    const bytes = await consume(this.bodyState());
    return new Blob([bytes], { type: this.headers.get("content-type") ?? "" });
  }
  async formData(): Promise<FormData> {
    return parseFormData(await consume(this.bodyState()), this.headers.get("content-type"));
  }
}
