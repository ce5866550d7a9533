import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileFunction } from "../../runtime/index.ts";
import type { IsolateHost } from "../../sandbox/index.ts";
import { denoEnv, denoMissing, runDeno } from "../helpers/deno.ts";
import { hostFor, json, recordingIO, request } from "./helpers.ts";

/**
 * Issue 38: `Temporal` in a function that names it (runtime/polyfills.ts, polyfills/temporal.ts:
 * FullCalendar's temporal-polyfill where V8 has none), run inside a real isolate. The expectations
 * are what Deno 2.9.5 (V8 15.0, its own Temporal) prints for the same function, and the last block
 * runs the function under Deno to keep them so.
 */

const GUEST = `
const failure = (fn) => { try { fn(); return "no error"; } catch (e) { return e.constructor.name; } };
const checks = {
  plainDate() {
    const leap = Temporal.PlainDate.from("2024-02-29");
    return {
      addYear: leap.add({ years: 1 }).toString(),
      reject: failure(() => leap.add({ years: 1 }, { overflow: "reject" })),
      compare: [Temporal.PlainDate.compare("2024-01-01", leap), Temporal.PlainDate.compare(leap, "2024-02-29"), [leap, "2023-12-31", "2024-03-01"].sort(Temporal.PlainDate.compare).map(String)],
      fields: [leap.dayOfWeek, leap.dayOfYear, leap.weekOfYear, leap.inLeapYear, leap.daysInMonth, leap.monthCode, leap.calendarId],
      until: [leap.until("2025-03-01").toString(), leap.until("2025-03-01", { largestUnit: "years" }).toString(), leap.since("2024-01-01", { largestUnit: "months" }).toString()],
      equals: [leap.equals("2024-02-29"), leap.with({ day: 1 }).toString(), leap.toPlainDateTime("12:30").toString()],
      yearMonth: [leap.toPlainYearMonth().toString(), Temporal.PlainMonthDay.from("--02-29").toString(), Temporal.PlainTime.from("23:59:59.999999999").add({ nanoseconds: 1 }).toString()],
    };
  },
  zoned() {
    const instant = Temporal.Instant.from("2024-03-31T00:30:00Z");
    const paris = instant.toZonedDateTimeISO("Europe/Paris");
    const gap = Temporal.ZonedDateTime.from("2024-03-31T02:30[Europe/Paris]");
    const dayBefore = Temporal.ZonedDateTime.from("2024-03-30T12:00[Europe/Paris]");
    return {
      paris: paris.toString(),
      gap: [gap.toString(), failure(() => Temporal.ZonedDateTime.from("2024-03-31T02:30[Europe/Paris]", { disambiguation: "reject" }))],
      dst: [dayBefore.add({ days: 1 }).toString(), dayBefore.add({ hours: 24 }).toString(), paris.hoursInDay, paris.startOfDay().toString(), paris.offset],
      newYork: paris.withTimeZone("America/New_York").toString(),
      transition: paris.getTimeZoneTransition("next")?.toString(),
      instant: [instant.epochMilliseconds, String(instant.epochNanoseconds), instant.toString({ timeZone: "Asia/Kolkata" }), instant.add({ hours: 1.5 * 2 }).toString()],
      offsetString: Temporal.ZonedDateTime.from("2024-07-01T12:00+02:00[Europe/Paris]").toString({ offset: "never", timeZoneName: "critical" }),
      compare: Temporal.ZonedDateTime.compare(paris, paris.withTimeZone("UTC")),
      badOffset: failure(() => Temporal.ZonedDateTime.from("2024-07-01T12:00+05:00[Europe/Paris]")),
      since: Temporal.ZonedDateTime.from("2024-10-27T00:00[Europe/Paris]").until("2024-10-28T00:00[Europe/Paris]", { largestUnit: "hours" }).toString(),
    };
  },
  duration() {
    const d = Temporal.Duration.from({ hours: 130, minutes: 20 });
    return {
      round: [d.round({ largestUnit: "day" }).toString(), d.round({ smallestUnit: "hour", roundingMode: "halfExpand" }).toString(), Temporal.Duration.from({ days: 45 }).round({ largestUnit: "month", relativeTo: "2024-01-31" }).toString()],
      total: [d.total({ unit: "minute" }), Temporal.Duration.from("PT1H30M").total("hours"), Temporal.Duration.from({ months: 1 }).total({ unit: "day", relativeTo: "2024-02-01" })],
      noRelativeTo: [failure(() => Temporal.Duration.from({ years: 1 }).total("day")), failure(() => Temporal.Duration.from({ months: 1 }).round({ largestUnit: "day" }))],
      signs: [Temporal.Duration.from("-P1DT2H").toString(), Temporal.Duration.from("-P1DT2H").abs().toString(), Temporal.Duration.from("PT0S").blank, Temporal.Duration.from("P1D").negated().sign],
      compare: [Temporal.Duration.compare("PT1H", "PT60M"), Temporal.Duration.compare("PT2H", { minutes: 90 })],
      mixed: failure(() => Temporal.Duration.from({ hours: 1, minutes: -1 })),
      json: JSON.stringify({ d: Temporal.Duration.from({ weeks: 2, milliseconds: 1500 }) }),
    };
  },
  now() {
    const instant = Temporal.Now.instant();
    return {
      types: [typeof instant, instant instanceof Temporal.Instant, Object.prototype.toString.call(instant), Temporal.Now.plainDateISO() instanceof Temporal.PlainDate, typeof Temporal.Now.zonedDateTimeISO().epochNanoseconds],
      timeZone: Temporal.Now.timeZoneId(),
      close: Math.abs(instant.epochMilliseconds - Date.now()) < 5000,
      tag: Object.prototype.toString.call(Temporal.Now),
    };
  },
  errors() {
    return [
      failure(() => Temporal.PlainDate.from("2024-13-01")),
      failure(() => Temporal.ZonedDateTime.from("2024-01-01T00:00[Mars/Olympus]")),
      failure(() => Temporal.Now.zonedDateTimeISO("Nowhere/Nope")),
      failure(() => new Temporal.PlainDate(2024, 1, 1, "not-a-calendar")),
      failure(() => Temporal.PlainDate.from("2024-01-01").withCalendar("klingon")),
      failure(() => Temporal.PlainDate.from({ year: 2024 })),
      failure(() => new Temporal.Instant(1)),
      failure(() => Temporal.PlainDate.prototype.add.call({}, { days: 1 })),
      failure(() => Temporal.PlainDate.from("2024-01-01") < Temporal.PlainDate.from("2024-01-02")),
      failure(() => Temporal.PlainDate()),
      failure(() => Temporal.Instant.from("2024-01-01T00:00")),
    ];
  },
  calendars() {
    const date = Temporal.PlainDate.from("2024-02-29");
    const hebrew = date.withCalendar("hebrew");
    const japanese = date.withCalendar("japanese");
    return {
      hebrew: [hebrew.toString(), hebrew.year, hebrew.monthCode, hebrew.day, hebrew.inLeapYear],
      japanese: [japanese.era, japanese.eraYear, japanese.toString()],
      fromFields: Temporal.PlainDate.from({ year: 5784, monthCode: "M05L", day: 1, calendar: "hebrew" }).toString(),
      gregory: date.withCalendar("gregory").era,
      islamic: date.withCalendar("islamic-civil").toString(),
    };
  },
  descriptors() {
    const d = Object.getOwnPropertyDescriptor(globalThis, "Temporal");
    const instant = Object.getOwnPropertyDescriptor(Date.prototype, "toTemporalInstant");
    const tag = Object.getOwnPropertyDescriptor(Temporal, Symbol.toStringTag);
    return {
      global: [typeof d.value, d.enumerable, d.writable, d.configurable],
      inKeys: Object.keys(globalThis).includes("Temporal"),
      tag: [Temporal[Symbol.toStringTag], tag.enumerable, tag.writable, tag.configurable, Object.prototype.toString.call(Temporal)],
      proto: Object.getPrototypeOf(Temporal) === Object.prototype,
      members: Object.getOwnPropertyNames(Temporal).sort(),
      enumerableMembers: Object.keys(Temporal),
      toTemporalInstant: [typeof instant.value, instant.enumerable, instant.writable, instant.configurable, instant.value.name, instant.value.length],
      classes: ["Instant", "PlainDate", "PlainDateTime", "PlainTime", "ZonedDateTime", "Duration", "PlainYearMonth", "PlainMonthDay"].map((name) => {
        const c = Object.getOwnPropertyDescriptor(Temporal, name);
        return [name, c.enumerable, c.writable, c.configurable, c.value.name, c.value.length, c.value.prototype[Symbol.toStringTag]];
      }),
      misnamedGetters: Object.values(Temporal).filter((c) => typeof c === "function").flatMap((c) =>
        Object.entries(Object.getOwnPropertyDescriptors(c.prototype))
          .filter(([key, d]) => d.get && d.get.name !== "get " + key)
          .map(([key, d]) => c.name + "." + key + ": " + d.get.name)),
      methods: [Temporal.PlainDate.prototype.add.name, Temporal.PlainDate.prototype.add.length, Temporal.PlainDate.from.length, Object.getOwnPropertyDescriptor(Temporal.PlainDate.prototype, "year").get.name],
    };
  },
  intl() {
    const date = Temporal.PlainDate.from("2024-02-29");
    const format = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", dateStyle: "long" });
    return {
      toTemporalInstant: new Date(0).toTemporalInstant().toString(),
      plainDate: date.toLocaleString("en-US"),
      zoned: Temporal.ZonedDateTime.from("2024-03-31T03:30[Europe/Paris]").toLocaleString("en-GB", { dateStyle: "full", timeStyle: "long" }),
      dateTimeFormat: [format.format(new Date(0)), format.format(Temporal.Instant.from("1970-01-01T00:00:00Z")), new Intl.DateTimeFormat("en-US", { timeZone: "UTC" }).format(date)],
      constructor: [Intl.DateTimeFormat.name, Intl.DateTimeFormat.length, format instanceof Intl.DateTimeFormat, typeof Intl.DateTimeFormat.supportedLocalesOf, Object.prototype.toString.call(format)],
      parts: format.formatToParts(new Date(0)).map((p) => p.type),
      // The space around "–" is ICU data: Node 20 has a plain one, Deno a thin one.
      range: format.formatRange(new Date(0), new Date(86400000 * 2)).startsWith("January 1"),
      resolved: format.resolvedOptions().timeZone,
    };
  },
};
export default {
  async fetch(request) {
    const name = new URL(request.url).pathname.slice(1);
    return Response.json(await checks[name]());
  },
};
`;

const CHECKS = [
  "plainDate",
  "zoned",
  "duration",
  "now",
  "errors",
  "calendars",
  "descriptors",
  "intl",
] as const;

/** What Deno 2.9.5 answers (TZ=UTC, as an isolate's time zone is). */
const DENO_SAYS: Record<(typeof CHECKS)[number], unknown> = {
  plainDate: {
    addYear: "2025-02-28",
    reject: "RangeError",
    compare: [-1, 0, ["2023-12-31", "2024-02-29", "2024-03-01"]],
    fields: [4, 60, 9, true, 29, "M02", "iso8601"],
    until: ["P366D", "P1Y1D", "P1M28D"],
    equals: [true, "2024-02-01", "2024-02-29T12:30:00"],
    yearMonth: ["2024-02", "02-29", "00:00:00"],
  },
  zoned: {
    paris: "2024-03-31T01:30:00+01:00[Europe/Paris]",
    gap: ["2024-03-31T03:30:00+02:00[Europe/Paris]", "RangeError"],
    dst: [
      "2024-03-31T12:00:00+02:00[Europe/Paris]",
      "2024-03-31T13:00:00+02:00[Europe/Paris]",
      23,
      "2024-03-31T00:00:00+01:00[Europe/Paris]",
      "+01:00",
    ],
    newYork: "2024-03-30T20:30:00-04:00[America/New_York]",
    transition: "2024-03-31T03:00:00+02:00[Europe/Paris]",
    instant: [1711845000000, "1711845000000000000", "2024-03-31T06:00:00+05:30", "2024-03-31T03:30:00Z"],
    offsetString: "2024-07-01T12:00:00[!Europe/Paris]",
    compare: 0,
    badOffset: "RangeError",
    since: "PT25H",
  },
  duration: {
    round: ["P5DT10H20M", "PT130H", "P1M16D"],
    total: [7820, 1.5, 29],
    noRelativeTo: ["RangeError", "RangeError"],
    signs: ["-P1DT2H", "P1DT2H", true, -1],
    compare: [0, 1],
    mixed: "RangeError",
    json: '{"d":"P2WT1.5S"}',
  },
  now: {
    types: ["object", true, "[object Temporal.Instant]", true, "bigint"],
    timeZone: "UTC",
    close: true,
    tag: "[object Temporal.Now]",
  },
  errors: [
    "RangeError",
    "RangeError",
    "RangeError",
    "RangeError",
    "RangeError",
    "TypeError",
    "TypeError",
    "TypeError",
    "TypeError",
    "TypeError",
    "RangeError",
  ],
  calendars: {
    hebrew: ["2024-02-29[u-ca=hebrew]", 5784, "M05L", 20, true],
    japanese: ["reiwa", 6, "2024-02-29[u-ca=japanese]"],
    fromFields: "2024-02-10[u-ca=hebrew]",
    gregory: "ce",
    islamic: "2024-02-29[u-ca=islamic-civil]",
  },
  descriptors: {
    global: ["object", false, true, true],
    inKeys: false,
    tag: ["Temporal", false, false, true, "[object Temporal]"],
    proto: true,
    members: [
      "Duration",
      "Instant",
      "Now",
      "PlainDate",
      "PlainDateTime",
      "PlainMonthDay",
      "PlainTime",
      "PlainYearMonth",
      "ZonedDateTime",
    ],
    enumerableMembers: [],
    toTemporalInstant: ["function", false, true, true, "toTemporalInstant", 0],
    classes: [
      ["Instant", false, true, true, "Instant", 1, "Temporal.Instant"],
      ["PlainDate", false, true, true, "PlainDate", 3, "Temporal.PlainDate"],
      ["PlainDateTime", false, true, true, "PlainDateTime", 3, "Temporal.PlainDateTime"],
      ["PlainTime", false, true, true, "PlainTime", 0, "Temporal.PlainTime"],
      ["ZonedDateTime", false, true, true, "ZonedDateTime", 2, "Temporal.ZonedDateTime"],
      ["Duration", false, true, true, "Duration", 0, "Temporal.Duration"],
      ["PlainYearMonth", false, true, true, "PlainYearMonth", 2, "Temporal.PlainYearMonth"],
      ["PlainMonthDay", false, true, true, "PlainMonthDay", 2, "Temporal.PlainMonthDay"],
    ],
    misnamedGetters: [],
    methods: ["add", 1, 1, "get year"],
  },
  intl: {
    toTemporalInstant: "1970-01-01T00:00:00Z",
    plainDate: "2/29/2024",
    zoned: "Sunday, 31 March 2024 at 03:30:00 CEST",
    dateTimeFormat: ["January 1, 1970", "January 1, 1970", "2/29/2024"],
    constructor: ["DateTimeFormat", 0, true, "function", "[object Intl.DateTimeFormat]"],
    parts: ["month", "literal", "day", "literal", "year"],
    range: true,
    resolved: "UTC",
  },
};

/** V8's own Temporal, unflagged: on none of Node 20, 22 and 24. */
const NATIVE_TEMPORAL = "Temporal" in globalThis;

let host: IsolateHost;
beforeAll(async () => {
  host = await hostFor(GUEST, { memoryLimitMb: 64, cpuTimeLimitMs: 2_000, wallTimeLimitMs: 5_000 });
});
afterAll(() => host.dispose());

const check = async (name: string) =>
  json(await host.invoke(request(`https://fn.example/${name}`), recordingIO()));

describe("Temporal in a function that names it (issue 38)", () => {
  for (const name of CHECKS.filter((name) => name !== "descriptors")) {
    it(`answers ${name} as Deno does`, async () => {
      expect(await check(name)).toEqual(DENO_SAYS[name]);
    });
  }

  it('installs Temporal as V8 would: a non-enumerable, writable, configurable global tagged "Temporal"', async () => {
    const descriptors = await check("descriptors");
    // test262 built-ins/Temporal/prop-desc.js and toStringTag/prop-desc.js.
    expect(descriptors.global).toEqual(["object", false, true, true]);
    expect(descriptors.tag).toEqual(["Temporal", false, false, true, "[object Temporal]"]);
    expect(descriptors).toEqual(DENO_SAYS.descriptors);
  });
});

describe("which functions get Temporal", () => {
  const bundle = (source: string) =>
    compileFunction({ "index.ts": source }, "index.ts", { maxBundleBytes: 10 * 1024 * 1024 });
  const PLAIN = `export default { fetch: () => Response.json({ names: Object.getOwnPropertyNames(globalThis) }) };`;
  const NAMING = `export default { fetch: () => Response.json({ names: Object.getOwnPropertyNames(globalThis), type: typeof Temporal }) };`;

  it("puts the polyfill ahead of a function that names Temporal, and nothing ahead of one that does not", async () => {
    const plain = await bundle(PLAIN);
    const naming = await bundle(NAMING);
    expect(plain.code).not.toContain("toTemporalInstant");
    expect(naming.code).toContain("toTemporalInstant");
    // Temporal alone: no core-js, no dispose symbols.
    expect(naming.code).not.toContain("__core-js_shared__");
    // Its cost (runtime/polyfills.ts): about 69 kB.
    expect(naming.bytes - plain.bytes).toBeGreaterThan(50_000);
    expect(naming.bytes - plain.bytes).toBeLessThan(100_000);
    const both = await bundle(
      `export default { fetch: () => Response.json([typeof Object.groupBy, Temporal.PlainDate.from("2024-01-01").year]) };`,
    );
    expect(both.code).toContain("__core-js_shared__");
    expect(both.code).toContain("toTemporalInstant");
  });

  it("adds Temporal and only Temporal to the global of a function that names it; none to one that does not", async () => {
    const globalsOf = async (source: string) => {
      const one = await hostFor(source);
      try {
        return (await json(await one.invoke(request(), recordingIO()))).names as string[];
      } finally {
        await one.dispose();
      }
    };
    const plain = await globalsOf(PLAIN);
    const naming = await globalsOf(NAMING);
    expect(plain.includes("Temporal")).toBe(NATIVE_TEMPORAL);
    expect(naming.filter((name) => !plain.includes(name))).toEqual(NATIVE_TEMPORAL ? [] : ["Temporal"]);
    expect(plain.filter((name) => !naming.includes(name))).toEqual([]);
  });
});

const missing = denoMissing();
if (missing) console.warn(`Temporal under Deno skipped: ${missing}`);

/** The reference: the same function under Deno, whose V8 has Temporal of its own. */
describe.skipIf(missing !== null)("the same Temporal function under Deno", () => {
  it("answers what the isolate is expected to answer", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-temporal-"));
    try {
      writeFileSync(join(dir, "fn.js"), GUEST);
      writeFileSync(
        join(dir, "main.js"),
        `import fn from "./fn.js";
const out = {};
for (const name of ${JSON.stringify(CHECKS)}) out[name] = await (await fn.fetch(new Request("https://fn.example/" + name))).json();
console.log(JSON.stringify(out));`,
      );
      const run = await runDeno(["run", "--no-prompt", "main.js"], {
        cwd: dir,
        env: denoEnv(join(dir, "deno-dir"), { TZ: "UTC" }),
      });
      expect(run.code, run.output).toBe(0);
      expect(JSON.parse(run.output.trim().split("\n").at(-1)!)).toEqual(DENO_SAYS);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
