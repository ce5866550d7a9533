import { hostSync } from "./bridge.ts";
import { structuredClone } from "./clone.ts";
import { DOMException } from "./dom-exception.ts";
import { EventTarget } from "./events.ts";

/**
 * High Resolution Time's `performance` with User Timing (L3): marks and measures. The clock
 * is the host's (op "now", milliseconds since the isolate's time origin). Entries belong to
 * the isolate, as in Deno they belong to the process; the buffer is bounded (User Timing
 * sets no bound, but an isolate lives across many requests, so one that marks every request
 * and never clears would grow until it hit its heap limit): past MAX_ENTRIES the oldest go.
 */
const MAX_ENTRIES = 10_000;
/** Constructors that only the platform may call (WebIDL: no constructor → "Illegal constructor"). */
const KEY = Symbol("performance");

let timeOriginMs = 0;
const entries: PerformanceEntry[] = [];

/** Set at boot: the isolate's time origin, as Unix epoch milliseconds. */
export function setTimeOrigin(ms: number): void {
  timeOriginMs = ms;
}

const now = (): number => hostSync("now", 0) as number;

export class PerformanceEntry {
  readonly #name: string;
  readonly #entryType: string;
  readonly #startTime: number;
  readonly #duration: number;
  constructor(key?: symbol, name = "", entryType = "", startTime = 0, duration = 0) {
    if (key !== KEY) throw new TypeError("Illegal constructor");
    this.#name = name;
    this.#entryType = entryType;
    this.#startTime = startTime;
    this.#duration = duration;
  }
  get name(): string {
    return this.#name;
  }
  get entryType(): string {
    return this.#entryType;
  }
  get startTime(): number {
    return this.#startTime;
  }
  get duration(): number {
    return this.#duration;
  }
  toJSON(): { name: string; entryType: string; startTime: number; duration: number } {
    return { name: this.name, entryType: this.entryType, startTime: this.startTime, duration: this.duration };
  }
  get [Symbol.toStringTag](): string {
    return "PerformanceEntry";
  }
}

/** User Timing §4.3: `new PerformanceMark(name, { startTime, detail })`, or `performance.mark`. */
export class PerformanceMark extends PerformanceEntry {
  readonly #detail: unknown;
  constructor(name: string, options: { startTime?: number; detail?: unknown } | null = {}) {
    if (arguments.length === 0) throw new TypeError("PerformanceMark requires a name");
    const startTime = options?.startTime === undefined ? now() : Number(options.startTime);
    if (!Number.isFinite(startTime)) throw new TypeError("startTime must be a finite number");
    if (startTime < 0) throw new TypeError("startTime cannot be negative");
    const detail = options?.detail === undefined ? null : structuredClone(options.detail);
    super(KEY, String(name), "mark", startTime, 0);
    this.#detail = detail;
  }
  get detail(): unknown {
    return this.#detail;
  }
  override get [Symbol.toStringTag](): string {
    return "PerformanceMark";
  }
}

/** User Timing §4.4: made only by `performance.measure`. */
export class PerformanceMeasure extends PerformanceEntry {
  readonly #detail: unknown;
  constructor(key?: symbol, name = "", startTime = 0, duration = 0, detail: unknown = null) {
    super(key, name, "measure", startTime, duration);
    this.#detail = detail;
  }
  get detail(): unknown {
    return this.#detail;
  }
  override get [Symbol.toStringTag](): string {
    return "PerformanceMeasure";
  }
}

interface MeasureOptions {
  start?: string | number;
  end?: string | number;
  duration?: number;
  detail?: unknown;
}

function record<T extends PerformanceEntry>(entry: T): T {
  entries.push(entry);
  if (entries.length > MAX_ENTRIES) entries.splice(0, entries.length - MAX_ENTRIES);
  return entry;
}

/** User Timing §3.1.3 "convert a mark to a timestamp": a mark's name (its latest), or a time. */
function toTimestamp(mark: string | number): number {
  if (typeof mark === "number") {
    if (mark < 0) throw new TypeError(`${mark} cannot be a negative timestamp`);
    return mark;
  }
  const name = String(mark);
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (entry.entryType === "mark" && entry.name === name) return entry.startTime;
  }
  throw new DOMException(`The mark "${name}" does not exist`, "SyntaxError");
}

function remove(entryType: string, name: string | undefined): void {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (entry.entryType === entryType && (name === undefined || entry.name === name)) entries.splice(i, 1);
  }
}

/** By start time (a stable sort: entries made at the same time keep their order). */
const chronological = (list: PerformanceEntry[]) => list.sort((a, b) => a.startTime - b.startTime);

export class Performance extends EventTarget {
  constructor(key?: symbol) {
    super();
    if (key !== KEY) throw new TypeError("Illegal constructor");
  }
  now(): number {
    return now();
  }
  get timeOrigin(): number {
    return timeOriginMs;
  }
  toJSON(): { timeOrigin: number } {
    return { timeOrigin: timeOriginMs };
  }
  mark(name: string, options?: { startTime?: number; detail?: unknown } | null): PerformanceMark {
    if (arguments.length === 0) throw new TypeError("performance.mark requires a name");
    return record(new PerformanceMark(name, options));
  }
  measure(
    name: string,
    startOrOptions?: string | MeasureOptions | null,
    endMark?: string,
  ): PerformanceMeasure {
    if (arguments.length === 0) throw new TypeError("performance.measure requires a name");
    // WebIDL (DOMString or PerformanceMeasureOptions): an object (or nothing) is the options.
    const isOptions =
      startOrOptions === undefined ||
      startOrOptions === null ||
      typeof startOrOptions === "object" ||
      typeof startOrOptions === "function";
    const options: MeasureOptions = isOptions ? (startOrOptions ?? {}) : {};
    const has = (member: keyof MeasureOptions) => options[member] !== undefined;
    const startMark = isOptions ? undefined : String(startOrOptions);
    if (isOptions && (has("start") || has("end") || has("duration") || has("detail"))) {
      if (endMark !== undefined) throw new TypeError("measure options cannot be given with an end mark");
      if (!has("start") && !has("end")) throw new TypeError("measure options need a start or an end");
      if (has("start") && has("end") && has("duration"))
        throw new TypeError("measure options cannot have start, end and duration together");
    }
    let end: number;
    if (endMark !== undefined) end = toTimestamp(String(endMark));
    else if (has("end")) end = toTimestamp(options.end!);
    else if (has("start") && has("duration"))
      end = toTimestamp(options.start!) + toTimestamp(Number(options.duration));
    else end = now();
    let start: number;
    if (has("start")) start = toTimestamp(options.start!);
    else if (has("duration") && has("end")) start = end - toTimestamp(Number(options.duration));
    else if (startMark !== undefined) start = toTimestamp(startMark);
    else start = 0;
    const detail = has("detail") ? structuredClone(options.detail) : null;
    return record(new PerformanceMeasure(KEY, String(name), start, end - start, detail));
  }
  getEntries(): PerformanceEntry[] {
    return chronological([...entries]);
  }
  getEntriesByType(type: string): PerformanceEntry[] {
    return chronological(entries.filter((entry) => entry.entryType === String(type)));
  }
  getEntriesByName(name: string, type?: string): PerformanceEntry[] {
    return chronological(
      entries.filter(
        (entry) => entry.name === String(name) && (type === undefined || entry.entryType === String(type)),
      ),
    );
  }
  clearMarks(name?: string): void {
    remove("mark", name === undefined ? undefined : String(name));
  }
  clearMeasures(name?: string): void {
    remove("measure", name === undefined ? undefined : String(name));
  }
  get [Symbol.toStringTag](): string {
    return "Performance";
  }
}

export const performance = new Performance(KEY);
