import { toBytes, utf8Encode } from "./encoding.ts";
import { concat, streamOf, type ReadableStream } from "./streams.ts";
import { TextDecoder } from "./encoding.ts";

/** File API §3 Blob: immutable bytes and a type; here one Uint8Array. */
export class Blob {
  readonly #bytes: Uint8Array;
  readonly #type: string;

  constructor(parts: Iterable<unknown> = [], options: { type?: string; endings?: string } = {}) {
    if (typeof parts !== "object" || parts === null || !(Symbol.iterator in parts)) {
      throw new TypeError("Blob parts must be a sequence");
    }
    const chunks: Uint8Array[] = [];
    for (const part of parts) {
      if (part instanceof Blob) chunks.push(part.#bytes);
      else if (part instanceof ArrayBuffer || ArrayBuffer.isView(part)) chunks.push(toBytes(part).slice());
      else chunks.push(utf8Encode(String(part)));
    }
    this.#bytes = concat(chunks);
    const type = String(options?.type ?? "");
    this.#type = /^[\x20-\x7e]*$/.test(type) ? type.toLowerCase() : "";
  }
  /** @internal */ static bytesOf(blob: Blob): Uint8Array {
    return blob.#bytes;
  }
  get size(): number {
    return this.#bytes.byteLength;
  }
  get type(): string {
    return this.#type;
  }
  slice(start = 0, end = this.size, type = ""): Blob {
    const size = this.size;
    const from = start < 0 ? Math.max(size + start, 0) : Math.min(start, size);
    const to = end < 0 ? Math.max(size + end, 0) : Math.min(end, size);
    return new Blob([this.#bytes.subarray(from, Math.max(from, to))], { type });
  }
  async text(): Promise<string> {
    return new TextDecoder().decode(this.#bytes);
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.#bytes.slice().buffer;
  }
  async bytes(): Promise<Uint8Array> {
    return this.#bytes.slice();
  }
  stream(): ReadableStream<Uint8Array> {
    return streamOf(this.#bytes.slice());
  }
  get [Symbol.toStringTag](): string {
    return "Blob";
  }
}

export class File extends Blob {
  readonly #name: string;
  readonly #lastModified: number;
  constructor(
    parts: Iterable<unknown>,
    name: string,
    options: { type?: string; lastModified?: number } = {},
  ) {
    super(parts, options);
    if (arguments.length < 2) throw new TypeError("File takes parts and a name");
    this.#name = String(name);
    this.#lastModified = options?.lastModified === undefined ? Date.now() : Number(options.lastModified);
  }
  get name(): string {
    return this.#name;
  }
  get lastModified(): number {
    return this.#lastModified;
  }
  override get [Symbol.toStringTag](): string {
    return "File";
  }
}

type FormDataValue = string | File;

/** XHR §4.3 FormData: an ordered list of entries; Blobs become Files named "blob". */
export class FormData {
  #entries: Array<[string, FormDataValue]> = [];

  constructor(form?: unknown) {
    if (form !== undefined) throw new TypeError("FormData takes no form element here");
  }
  #value(value: unknown, filename?: string): FormDataValue {
    if (value instanceof Blob) {
      if (value instanceof File && filename === undefined) return value;
      return new File([value], filename ?? (value instanceof File ? value.name : "blob"), {
        type: value.type,
      });
    }
    return String(value);
  }
  append(name: string, value: unknown, filename?: string): void {
    this.#entries.push([String(name), this.#value(value, filename)]);
  }
  set(name: string, value: unknown, filename?: string): void {
    const key = String(name);
    const entry: [string, FormDataValue] = [key, this.#value(value, filename)];
    const index = this.#entries.findIndex(([n]) => n === key);
    if (index < 0) {
      this.#entries.push(entry);
      return;
    }
    this.#entries = this.#entries.filter(([n], i) => n !== key || i === index);
    this.#entries[index] = entry;
  }
  delete(name: string): void {
    this.#entries = this.#entries.filter(([n]) => n !== String(name));
  }
  get(name: string): FormDataValue | null {
    return this.#entries.find(([n]) => n === String(name))?.[1] ?? null;
  }
  getAll(name: string): FormDataValue[] {
    return this.#entries.filter(([n]) => n === String(name)).map(([, v]) => v);
  }
  has(name: string): boolean {
    return this.#entries.some(([n]) => n === String(name));
  }
  forEach(callback: (value: FormDataValue, name: string, form: FormData) => void, thisArg?: unknown): void {
    for (const [name, value] of this.#entries) callback.call(thisArg, value, name, this);
  }
  *entries(): IterableIterator<[string, FormDataValue]> {
    for (const entry of [...this.#entries]) yield [entry[0], entry[1]];
  }
  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }
  *values(): IterableIterator<FormDataValue> {
    for (const [, value] of this.entries()) yield value;
  }
  [Symbol.iterator](): IterableIterator<[string, FormDataValue]> {
    return this.entries();
  }
  get [Symbol.toStringTag](): string {
    return "FormData";
  }
}
