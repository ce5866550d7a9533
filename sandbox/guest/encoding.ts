import { DOMException } from "./dom-exception.ts";

/** UTF-8 only, as WinterTC requires (Encoding Standard §8, §9). */

export function utf8Encode(input: string): Uint8Array {
  const out = new Uint8Array(input.length * 3);
  let n = 0;
  for (let i = 0; i < input.length; i++) {
    let c = input.charCodeAt(i);
    if (c < 0x80) {
      out[n++] = c;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < input.length) {
      const d = input.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd; // a lone surrogate becomes U+FFFD
    if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 63);
    } else if (c < 0x10000) {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 63);
      out[n++] = 0x80 | (c & 63);
    } else {
      out[n++] = 0xf0 | (c >> 18);
      out[n++] = 0x80 | ((c >> 12) & 63);
      out[n++] = 0x80 | ((c >> 6) & 63);
      out[n++] = 0x80 | (c & 63);
    }
  }
  return out.slice(0, n);
}

/**
 * A streaming UTF-8 decoder (Encoding Standard §9.1.1): `pending` keeps the bytes of
 * a sequence split across chunks. Returns the decoded text and whether an error was
 * replaced, so `fatal` can throw.
 */
class Utf8Decoder {
  private needed = 0;
  private seen = 0;
  private point = 0;
  private lower = 0x80;
  private upper = 0xbf;

  decode(bytes: Uint8Array, flush: boolean, fatal: boolean): string {
    let out = "";
    const codes: number[] = [];
    const push = (c: number) => {
      if (c > 0xffff) {
        c -= 0x10000;
        codes.push(0xd800 + (c >> 10), 0xdc00 + (c & 0x3ff));
      } else codes.push(c);
      if (codes.length > 8192) {
        out += String.fromCharCode(...codes);
        codes.length = 0;
      }
    };
    const error = () => {
      if (fatal) throw new TypeError("The encoded data was not valid UTF-8");
      push(0xfffd);
    };
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!;
      if (this.needed === 0) {
        if (byte < 0x80) push(byte);
        else if (byte >= 0xc2 && byte <= 0xdf) this.start(1, byte & 0x1f);
        else if (byte >= 0xe0 && byte <= 0xef) {
          if (byte === 0xe0) this.lower = 0xa0;
          if (byte === 0xed) this.upper = 0x9f;
          this.start(2, byte & 0xf);
        } else if (byte >= 0xf0 && byte <= 0xf4) {
          if (byte === 0xf0) this.lower = 0x90;
          if (byte === 0xf4) this.upper = 0x8f;
          this.start(3, byte & 0x7);
        } else error();
        continue;
      }
      if (byte < this.lower || byte > this.upper) {
        this.reset();
        error();
        i--; // the byte starts over (prepend to stream)
        continue;
      }
      this.lower = 0x80;
      this.upper = 0xbf;
      this.point = (this.point << 6) | (byte & 0x3f);
      if (++this.seen === this.needed) {
        const c = this.point;
        this.reset();
        push(c);
      }
    }
    if (flush && this.needed !== 0) {
      this.reset();
      error();
    }
    return out + String.fromCharCode(...codes);
  }

  private start(needed: number, point: number) {
    this.needed = needed;
    this.point = point;
  }

  private reset() {
    this.needed = 0;
    this.seen = 0;
    this.point = 0;
    this.lower = 0x80;
    this.upper = 0xbf;
  }
}

const UTF8_LABELS = new Set([
  "utf-8",
  "utf8",
  "unicode-1-1-utf-8",
  "unicode11utf8",
  "unicode20utf8",
  "x-unicode20utf8",
]);

export function toBytes(input: unknown): Uint8Array {
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  if (input === undefined) return new Uint8Array(0);
  throw new TypeError("The provided value is not an ArrayBuffer or an ArrayBufferView");
}

export class TextEncoder {
  get encoding(): string {
    return "utf-8";
  }
  encode(input: unknown = ""): Uint8Array {
    return utf8Encode(String(input));
  }
  encodeInto(input: unknown, destination: Uint8Array): { read: number; written: number } {
    const text = String(input);
    let read = 0;
    let written = 0;
    for (const char of text) {
      const bytes = utf8Encode(char);
      if (written + bytes.length > destination.length) break;
      destination.set(bytes, written);
      written += bytes.length;
      read += char.length;
    }
    return { read, written };
  }
  get [Symbol.toStringTag]() {
    return "TextEncoder";
  }
}

export class TextDecoder {
  readonly #fatal: boolean;
  readonly #ignoreBOM: boolean;
  #decoder = new Utf8Decoder();
  #bomSeen = false;

  constructor(label: unknown = "utf-8", options: { fatal?: boolean; ignoreBOM?: boolean } = {}) {
    const name = String(label).trim().toLowerCase();
    if (!UTF8_LABELS.has(name)) {
      throw new RangeError(
        `The encoding label provided ('${String(label)}') is not supported: only utf-8 is`,
      );
    }
    this.#fatal = Boolean(options?.fatal);
    this.#ignoreBOM = Boolean(options?.ignoreBOM);
  }
  get encoding(): string {
    return "utf-8";
  }
  get fatal(): boolean {
    return this.#fatal;
  }
  get ignoreBOM(): boolean {
    return this.#ignoreBOM;
  }
  decode(input?: unknown, options: { stream?: boolean } = {}): string {
    const stream = Boolean(options?.stream);
    let text: string;
    try {
      text = this.#decoder.decode(toBytes(input), !stream, this.#fatal);
    } catch (error) {
      this.#decoder = new Utf8Decoder();
      this.#bomSeen = false;
      throw error;
    }
    if (!this.#ignoreBOM && !this.#bomSeen && text.length > 0) {
      this.#bomSeen = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (!stream) this.#bomSeen = false;
    return text;
  }
  get [Symbol.toStringTag]() {
    return "TextDecoder";
  }
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** The index of a base64 character by arithmetic: a table of one-character keys would not survive the snapshot. */
function base64Index(code: number): number {
  if (code >= 65 && code <= 90) return code - 65;
  if (code >= 97 && code <= 122) return code - 71;
  if (code >= 48 && code <= 57) return code + 4;
  return code === 43 ? 62 : 63;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i]!;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    const n = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out += BASE64[(n >> 18) & 63]! + BASE64[(n >> 12) & 63]!;
    out += b === undefined ? "=" : BASE64[(n >> 6) & 63]!;
    out += c === undefined ? "=" : BASE64[n & 63]!;
  }
  return out;
}

/** HTML §8.3: btoa takes a "binary string" (code points ≤ 0xFF). */
export function btoa(data: unknown): string {
  const text = String(data);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0xff)
      throw new DOMException(
        "The string to be encoded contains characters outside of the Latin1 range.",
        "InvalidCharacterError",
      );
    bytes[i] = c;
  }
  return bytesToBase64(bytes);
}

/** HTML §8.3 forgiving-base64 decode. */
export function atob(data: unknown): string {
  let text = String(data).replace(/[\t\n\f\r ]/g, "");
  if (text.length % 4 === 0) text = text.replace(/={1,2}$/, "");
  if (text.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(text)) {
    throw new DOMException("The string to be decoded is not correctly encoded.", "InvalidCharacterError");
  }
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < text.length; i++) {
    buffer = ((buffer << 6) | base64Index(text.charCodeAt(i))) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += String.fromCharCode((buffer >> bits) & 0xff);
    }
  }
  return out;
}
