/**
 * Exact decimal arithmetic on strings, for money. Amounts travel as JSON numbers
 * or strings and are stored as Postgres `numeric`; binary floats never touch the sum.
 */

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

interface Scaled {
  units: bigint;
  scale: number;
}

function parse(value: string): Scaled {
  const match = DECIMAL.exec(value);
  if (!match) throw new RangeError(`not a decimal: ${value}`);
  const [, sign, whole, fraction = ""] = match;
  const units = BigInt(`${whole}${fraction}`) * (sign ? -1n : 1n);
  return { units, scale: fraction.length };
}

function rescale(value: Scaled, scale: number): bigint {
  return value.units * 10n ** BigInt(scale - value.scale);
}

function format(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, "0");
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** True for a plain decimal literal such as `12`, `12.5`, `-0.01`. */
export function isDecimal(value: string): boolean {
  return DECIMAL.test(value);
}

/** Canonical form: no trailing fractional zeros, no leading zeros. `"0012.50"` → `"12.5"`. */
export function normalizeDecimal(value: string): string {
  const parsed = parse(value);
  return format(parsed.units, parsed.scale);
}

export function addDecimals(values: readonly string[]): string {
  const parsed = values.map(parse);
  const scale = Math.max(0, ...parsed.map((p) => p.scale));
  const sum = parsed.reduce((acc, p) => acc + rescale(p, scale), 0n);
  return format(sum, scale);
}

export function multiplyDecimals(a: string, b: string): string {
  const left = parse(a);
  const right = parse(b);
  return format(left.units * right.units, left.scale + right.scale);
}

export function compareDecimals(a: string, b: string): -1 | 0 | 1 {
  const left = parse(a);
  const right = parse(b);
  const scale = Math.max(left.scale, right.scale);
  const diff = rescale(left, scale) - rescale(right, scale);
  return diff === 0n ? 0 : diff < 0n ? -1 : 1;
}

/** Decimal places of a literal: `"1.250"` → 3. */
export function decimalPlaces(value: string): number {
  return parse(value).scale;
}

/** `a - b`, exactly. */
export function subtractDecimals(a: string, b: string): string {
  const right = parse(b);
  return addDecimals([a, format(-right.units, right.scale)]);
}
