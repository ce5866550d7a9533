import { bootSlot, hostSync, requests } from "./bridge.ts";

/**
 * console: each call becomes one line for the host's `io.log` of the current request.
 * Objects are formatted roughly as Deno (and Node's util.inspect) print them.
 */
type Level = "debug" | "info" | "log" | "warn" | "error";
const MAX_DEPTH = 4;
const MAX_ITEMS = 100;

function emit(level: Level, message: string): void {
  // The top level's lines go to its own slot: the host hands them to the first request's log.
  const slot = requests.current?.slot ?? bootSlot();
  // Outside a request and after the top level (a stray callback) there is no log to write to.
  if (slot === undefined) return;
  hostSync("log", slot, level, message.length > 65_536 ? `${message.slice(0, 65_536)}…` : message);
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function quote(text: string): string {
  const q = !text.includes('"') ? '"' : !text.includes("'") ? "'" : "`";
  return q + text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(new RegExp(q, "g"), `\\${q}`) + q;
}

function key(name: PropertyKey): string {
  if (typeof name === "symbol") return `[${name.toString()}]`;
  return IDENTIFIER.test(name as string) ? (name as string) : quote(String(name));
}

function constructorName(value: object): string | null {
  const proto = Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null;
  if (proto === null) return "[Object: null prototype]";
  const name = proto.constructor?.name;
  return typeof name === "string" ? name : null;
}

/** `quoteStrings`: a string at the top is quoted too (Deno.inspect); console prints it as is. */
export interface InspectOptions {
  maxDepth?: number;
  quoteStrings?: boolean;
}
const CONSOLE: InspectOptions = {};

export function inspect(
  value: unknown,
  depth = 0,
  seen: object[] = [],
  options: InspectOptions = CONSOLE,
): string {
  switch (typeof value) {
    case "string":
      return depth === 0 && !options.quoteStrings ? value : quote(value);
    case "number":
      return Object.is(value, -0) ? "-0" : String(value);
    case "bigint":
      return `${value}n`;
    case "symbol":
      return value.toString();
    case "undefined":
      return "undefined";
    case "boolean":
      return String(value);
    case "function": {
      const name = value.name ? `: ${value.name}` : " (anonymous)";
      return /^class\s/.test(Function.prototype.toString.call(value))
        ? `[class ${value.name || "(anonymous)"}]`
        : `[Function${name}]`;
    }
  }
  if (value === null) return "null";
  return inspectObject(value as object, depth, seen, options);
}

function inspectObject(value: object, depth: number, seen: object[], options: InspectOptions): string {
  if (seen.includes(value)) return "[Circular *1]";
  if (value instanceof Error) return value.stack ?? `${value.name}: ${value.message}`;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
  if (value instanceof RegExp) return value.toString();
  if (value instanceof Promise) return "Promise { <unknown> }";
  if (value instanceof WeakMap) return "WeakMap { <items unknown> }";
  if (value instanceof WeakSet) return "WeakSet { <items unknown> }";
  const name = constructorName(value);
  if (depth >= (options.maxDepth ?? MAX_DEPTH))
    return Array.isArray(value) ? "[Array]" : `[${name ?? "Object"}]`;
  const inner = [...seen, value];
  const show = (item: unknown) => inspect(item, depth + 1, inner, options);
  let items: string[];
  let open = "{";
  let close = "}";
  let prefix = name && name !== "Object" ? `${name} ` : "";
  if (Array.isArray(value)) {
    items = value.slice(0, MAX_ITEMS).map(show);
    if (value.length > MAX_ITEMS) items.push(`... ${value.length - MAX_ITEMS} more items`);
    [open, close] = ["[", "]"];
    prefix = name === "Array" ? "" : prefix;
  } else if (value instanceof Map) {
    items = [...value].slice(0, MAX_ITEMS).map(([k, v]) => `${show(k)} => ${show(v)}`);
    prefix = `Map(${value.size}) `;
  } else if (value instanceof Set) {
    items = [...value].slice(0, MAX_ITEMS).map(show);
    prefix = `Set(${value.size}) `;
  } else if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    const list = value as unknown as ArrayLike<number>;
    items = Array.from({ length: Math.min(list.length, MAX_ITEMS) }, (_, i) => String(list[i]));
    if (list.length > MAX_ITEMS) items.push(`... ${list.length - MAX_ITEMS} more items`);
    [open, close] = ["[", "]"];
    prefix = `${name ?? "TypedArray"}(${list.length}) `;
  } else if (value instanceof ArrayBuffer) {
    return `ArrayBuffer { byteLength: ${value.byteLength} }`;
  } else {
    const tag = (value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag];
    if (typeof tag === "string" && tag !== name) prefix = `${name ?? "Object"} [${tag}] `;
    items = [];
  }
  if (!(ArrayBuffer.isView(value) || value instanceof Map || value instanceof Set)) {
    for (const property of Reflect.ownKeys(value)) {
      if (Array.isArray(value) && (property === "length" || /^\d+$/.test(String(property)))) continue;
      const descriptor = Object.getOwnPropertyDescriptor(value, property);
      if (!descriptor?.enumerable) continue;
      const shown = "value" in descriptor ? show(descriptor.value) : "[Getter/Setter]";
      items.push(`${key(property)}: ${shown}`);
      if (items.length > MAX_ITEMS) break;
    }
  }
  if (items.length === 0) return `${prefix}${open}${close}`;
  const line = `${prefix}${open} ${items.join(", ")} ${close}`;
  if (line.length <= 72 && !line.includes("\n")) return line;
  const pad = "  ".repeat(depth + 1);
  return `${prefix}${open}\n${items.map((item) => pad + item.replace(/\n/g, `\n${pad}`)).join(",\n")}\n${"  ".repeat(depth)}${close}`;
}

/** printf-like substitutions (Console Standard §2.2.1 Formatter). */
export function format(args: unknown[]): string {
  const first = args[0];
  let rest = args.slice(1);
  let head: string;
  if (typeof first === "string" && rest.length > 0 && first.includes("%")) {
    head = first.replace(/%([sdifjoOc%])/g, (match, kind: string) => {
      if (kind === "%") return "%";
      if (rest.length === 0) return match;
      const [arg, ...others] = rest;
      rest = others;
      switch (kind) {
        case "s":
          return typeof arg === "string" ? arg : inspect(arg, 1);
        case "d":
        case "i": {
          const n = typeof arg === "bigint" ? arg : Number(arg);
          return typeof n === "bigint" ? `${n}n` : String(kind === "i" ? Math.trunc(n) : n);
        }
        case "f":
          return String(Number(arg));
        case "j":
          return JSON.stringify(arg);
        case "c":
          return "";
        default:
          return inspect(arg, 1);
      }
    });
  } else {
    head = args.length > 0 ? inspect(first) : "";
    if (args.length === 0) rest = [];
  }
  return [head, ...rest.map((arg) => inspect(arg))].join(" ");
}

const counts = new Map<string, number>();
const timers = new Map<string, number>();
let indent = "";

const write =
  (level: Level) =>
  (...args: unknown[]) =>
    emit(level, indent + format(args).replace(/\n/g, `\n${indent}`));

export const console = {
  log: write("log"),
  info: write("info"),
  debug: write("debug"),
  warn: write("warn"),
  error: write("error"),
  trace: (...args: unknown[]) =>
    emit(
      "error",
      `Trace${args.length ? `: ${format(args)}` : ""}\n${(new Error().stack ?? "").split("\n").slice(2).join("\n")}`,
    ),
  dir: (value: unknown) => emit("log", indent + inspect(value, 1)),
  dirxml: write("log"),
  table: write("log"),
  assert: (condition?: unknown, ...args: unknown[]) => {
    if (!condition) emit("error", `Assertion failed${args.length ? `: ${format(args)}` : ""}`);
  },
  count: (label = "default") => {
    const n = (counts.get(label) ?? 0) + 1;
    counts.set(label, n);
    emit("info", `${indent}${label}: ${n}`);
  },
  countReset: (label = "default") => void counts.delete(label),
  time: (label = "default") => void timers.set(label, Date.now()),
  timeLog: (label = "default", ...args: unknown[]) => {
    const started = timers.get(label);
    if (started !== undefined)
      emit("info", `${indent}${label}: ${Date.now() - started}ms ${format(args)}`.trimEnd());
  },
  timeEnd: (label = "default") => {
    const started = timers.get(label);
    timers.delete(label);
    if (started !== undefined) emit("info", `${indent}${label}: ${Date.now() - started}ms`);
  },
  group: (...args: unknown[]) => {
    if (args.length) write("log")(...args);
    indent += "    ";
  },
  groupCollapsed: (...args: unknown[]) => console.group(...args),
  groupEnd: () => {
    indent = indent.slice(4);
  },
  clear: () => {},
};
