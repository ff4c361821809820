/**
 * Kubernetes resource quantities, exactly as apimachinery's `resource.Quantity` parses, compares and
 * prints them. Values are exact decimals (never JS floats): byte and inode counts above 2^53 occur in
 * real data.
 *
 * CONTRACT (other modules code against these exports; keep them stable):
 * - parseQuantity(text) -> Quantity, or throws QuantityError with apimachinery's exact message.
 * - formatQuantity(q) -> canonical string (Quantity.String()).
 * - quantityFromInt(n, format) -> Quantity holding the integer n (NewQuantity).
 * - quantityFromNanos(n, format) -> Quantity holding n × 10^-9; quantityNanos(q) -> exact value × 10^9.
 * - quantityValue(q) -> bigint, rounded away from zero and saturated to int64 (Quantity.Value()).
 * - cmpQuantity(a, b) -> -1 | 0 | 1 exact; addQuantity/subQuantity keep a's format unless a is zero;
 *   quantitySign(q); isQuantityZero(q).
 *
 * Upstream baseline: apimachinery master of late 2026, i.e. including the exponent-fallback fix for
 * values beyond the `E`/`Ei` suffixes (kubernetes#140459), the int32 bound on `e` exponents and the
 * sub-nano shortcut. Values beyond int64 are kept exact, as upstream's inf.Dec does; only BinarySI
 * parses are capped at 2^63-1 (so `10Ei` reads as 9223372036854775807, while `1e30` stays 10^30).
 */

/** How a quantity prints: base-1024 suffixes, base-1000 suffixes, or an `e` exponent. */
export type QuantityFormat = "BinarySI" | "DecimalSI" | "DecimalExponent";

/**
 * An exact decimal value `unscaled × 10^scale`, with the format it prints in. Quantities built by this
 * module always have `scale >= -9` (upstream rounds everything up to 1n); the pair is not normalised,
 * so compare with cmpQuantity, never structurally.
 */
export interface Quantity {
  readonly unscaled: bigint;
  readonly scale: number;
  readonly format: QuantityFormat;
  /** The user's spelling, kept when upstream's parser deems it canonical (it prints verbatim). */
  readonly text?: string;
}

/** apimachinery `ErrFormatWrong`. */
export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/** apimachinery `ErrSuffix`. */
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";
/** apimachinery `ErrNumeric`. */
export const QUANTITY_NUMERIC_ERROR = "unable to parse numeric part of quantity";

/** A quantity string that apimachinery would reject; `message` is upstream's exact text. */
export class QuantityError extends Error {
  readonly code = "quantity";
  readonly input: string;
  constructor(message: string, input: string) {
    super(message);
    this.name = "QuantityError";
    this.input = input;
  }
}

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
const MAX_INT32 = 2147483647;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const BINARY_SUFFIXES = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"] as const;

interface SuffixSpec {
  readonly base: 2 | 10;
  readonly exponent: number;
  readonly format: QuantityFormat;
}

// upstream suffix.go: the decimal table (n..E, lowercase k, uppercase M) and the binary table (Ki..Ei).
const DECIMAL_EXPONENTS = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const SUFFIXES: ReadonlyMap<string, SuffixSpec> = new Map<string, SuffixSpec>([
  ...Object.entries(DECIMAL_EXPONENTS).map(
    ([s, exponent]) => [s, { base: 10, exponent, format: "DecimalSI" }] as const,
  ),
  ...BINARY_SUFFIXES.slice(1).map(
    (s, i) => [s, { base: 2, exponent: 10 * (i + 1), format: "BinarySI" }] as const,
  ),
]);
const DECIMAL_SUFFIX_BY_EXPONENT: ReadonlyMap<number, string> = new Map(
  [...SUFFIXES].filter(([, spec]) => spec.base === 10).map(([s, spec]) => [spec.exponent, s]),
);

const POW10: readonly bigint[] = Array.from({ length: 64 }, (_, k) => 10n ** BigInt(k));
/** 10^k as a bigint; the small exponents every hot path uses come from a table. */
const pow10 = (k: number): bigint => POW10[k] ?? 10n ** BigInt(k);

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const abs = (n: bigint): bigint => (n < 0n ? -n : n);
const digitCount = (magnitude: bigint): number => magnitude.toString().length;

/** |u| / 10^k rounded away from zero, with the sign of u (upstream rounds up "so you get some"). */
function divPow10AwayFromZero(u: bigint, k: number): bigint {
  const magnitude = abs(u);
  let q: bigint;
  if (digitCount(magnitude) <= k) {
    q = magnitude === 0n ? 0n : 1n; // |u| < 10^k: only the rounding unit is left (sub-nano shortcut)
  } else {
    const p = pow10(k);
    q = magnitude / p;
    if (q * p !== magnitude) q += 1n;
  }
  return u < 0n ? -q : q;
}

interface Scanned {
  readonly positive: boolean;
  readonly value: string;
  readonly num: string;
  readonly denom: string;
  readonly suffix: string;
}

const SUFFIX_CHARS = new Set("eEinumkKMGTP".split("").map((c) => c.charCodeAt(0)));

/** upstream `parseQuantityString`: a permissive scanner; undefined means ErrFormatWrong. */
function scanQuantity(str: string): Scanned | undefined {
  const end = str.length;
  let positive = true;
  let pos = 0;
  const first = str.charCodeAt(0);
  if (first === 45) {
    positive = false;
    pos++;
  } else if (first === 43) {
    pos++;
  }
  while (pos < end && str.charCodeAt(pos) === 48) pos++;
  if (pos >= end) return { positive, value: "0", num: "0", denom: "", suffix: "" };
  const numStart = pos;
  while (pos < end && isDigit(str.charCodeAt(pos))) pos++;
  if (pos >= end) return { positive, value: str, num: str.slice(numStart), denom: "", suffix: "" };
  const num = pos > numStart ? str.slice(numStart, pos) : "0";
  let denom = "";
  if (str.charCodeAt(pos) === 46) {
    const denomStart = ++pos;
    while (pos < end && isDigit(str.charCodeAt(pos))) pos++;
    denom = str.slice(denomStart, pos);
    if (pos >= end) return { positive, value: str, num, denom, suffix: "" };
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && SUFFIX_CHARS.has(str.charCodeAt(pos))) pos++;
  if (pos < end && (str.charCodeAt(pos) === 45 || str.charCodeAt(pos) === 43)) pos++;
  while (pos < end && isDigit(str.charCodeAt(pos))) pos++;
  return pos >= end ? { positive, value, num, denom, suffix: str.slice(suffixStart) } : undefined;
}

/** upstream `suffixer.interpret`; exponents must fit [-MaxInt32, MaxInt32] (newer upstream rejects the rest). */
function interpretSuffix(suffix: string): SuffixSpec | undefined {
  const known = SUFFIXES.get(suffix);
  if (known !== undefined) return known;
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E")) {
    // strconv.ParseInt(s, 10, 64): optional sign, then at least one digit, nothing else.
    const digits = suffix.slice(1);
    const body = digits[0] === "+" || digits[0] === "-" ? digits.slice(1) : digits;
    if (body.length === 0) return undefined;
    for (let i = 0; i < body.length; i++) if (!isDigit(body.charCodeAt(i))) return undefined;
    const exponent = BigInt(digits);
    if (exponent > BigInt(MAX_INT32) || exponent < -BigInt(MAX_INT32)) return undefined;
    return { base: 10, exponent: Number(exponent), format: "DecimalExponent" };
  }
  return undefined;
}

const ZERO_LITERAL: Quantity = Object.freeze({ unscaled: 0n, scale: 0, format: "DecimalSI", text: "0" });

/** Parse a quantity exactly like `resource.ParseQuantity`; throws QuantityError with upstream's message. */
export function parseQuantity(text: string): Quantity {
  if (text.length === 0) throw new QuantityError(QUANTITY_FORMAT_ERROR, text);
  if (text === "0") return ZERO_LITERAL;
  const scanned = scanQuantity(text);
  if (scanned === undefined) throw new QuantityError(QUANTITY_FORMAT_ERROR, text);
  const spec = interpretSuffix(scanned.suffix);
  if (spec === undefined) throw new QuantityError(QUANTITY_SUFFIX_ERROR, text);
  return parseFast(text, scanned, spec) ?? parseExact(text, scanned, spec);
}

/** upstream's int64 fast path, including its rule for keeping the user's text as the printed form. */
function parseFast(text: string, s: Scanned, spec: SuffixSpec): Quantity | undefined {
  const { num, denom } = s;
  let scale = 0;
  let shift = 0;
  let precision: number;
  if (spec.format === "BinarySI") {
    if (denom.length > 0) return undefined;
    shift = spec.exponent;
    // upstream: "1Mi (2^20) has ~6 digits of decimal precision, so exponent*3/10 -1 is roughly the precision"
    precision = 15 - num.length - Math.trunc((spec.exponent * 3) / 10) - 1;
  } else {
    scale = spec.exponent;
    precision = 19 - (num.length + denom.length);
  }
  if (precision < 0) return undefined;
  scale -= denom.length;
  if (scale < -9) return undefined;
  const shifted = num + denom;
  const value = BigInt(shifted);
  if (value > MAX_INT64) return undefined;
  const magnitude = shift === 0 ? value : value << BigInt(shift);
  if (magnitude > MAX_INT64) return undefined;
  const unscaled = s.positive ? magnitude : -magnitude;
  const format = spec.format;
  // upstream reuses the input string when it looks canonical; the test is textual, so `+5`, `01` and
  // `1.441` print back verbatim (a known upstream quirk, kubernetes#138165).
  const keepText =
    format === "BinarySI"
      ? spec.exponent % 10 === 0 && (value & 7n) !== 0n
      : scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0";
  return keepText ? { unscaled, scale, format, text } : { unscaled, scale, format };
}

/** upstream's inf.Dec path: exact value, rounded up to 1n, BinarySI capped at 2^63-1. */
function parseExact(text: string, s: Scanned, spec: SuffixSpec): Quantity {
  const v = s.value;
  const signed = v[0] === "+" || v[0] === "-";
  const body = signed ? v.slice(1) : v;
  const dot = body.indexOf(".");
  const fraction = dot < 0 ? "" : body.slice(dot + 1);
  const digits = (dot < 0 ? body : body.slice(0, dot)) + fraction;
  if (digits.length === 0) throw new QuantityError(QUANTITY_NUMERIC_ERROR, text);
  let magnitude = BigInt(digits);
  let scale = -fraction.length;
  if (spec.base === 10) scale += spec.exponent;
  else magnitude <<= BigInt(spec.exponent);
  if (scale < -9) {
    magnitude = divPow10AwayFromZero(magnitude, -9 - scale);
    scale = -9;
  }
  let format = spec.format;
  if (format === "BinarySI") {
    const one = pow10(-scale); // scale is in [-9, 0] here
    if (magnitude > MAX_INT64 * one) {
      magnitude = MAX_INT64;
      scale = 0;
    } else if (magnitude !== 0n && magnitude < one) {
      format = "DecimalSI"; // upstream: "This avoids rounding and hopefully confusion, too."
    }
  }
  return { unscaled: v[0] === "-" ? -magnitude : magnitude, scale, format };
}

/** `Quantity.String()`: the remembered text, else the canonical form for the quantity's format. */
export function formatQuantity(q: Quantity): string {
  if (q.text !== undefined) return q.text;
  const { unscaled, scale } = q;
  if (unscaled === 0n) return "0";
  const magnitude = abs(unscaled);
  const body =
    (q.format === "BinarySI" ? formatBinary(magnitude, scale) : undefined) ??
    formatDecimal(magnitude, scale, q.format === "DecimalExponent" ? "DecimalExponent" : "DecimalSI");
  return unscaled < 0n ? "-" + body : body;
}

/**
 * BinarySI: an integer >= 1024 prints with the largest binary suffix that keeps an integer mantissa.
 * Fractions and magnitudes below 1024 print as DecimalSI (undefined here); past `Ei` the value has no
 * binary suffix and falls back to the exact decimal-exponent form (kubernetes#140459).
 */
function formatBinary(magnitude: bigint, scale: number): string | undefined {
  let whole: bigint;
  if (scale >= 0) {
    whole = scale === 0 ? magnitude : magnitude * pow10(scale);
  } else {
    const one = pow10(-scale);
    whole = magnitude / one;
    if (whole * one !== magnitude) return undefined;
  }
  if (whole < 1024n) return undefined;
  if (whole <= MAX_SAFE) {
    let n = Number(whole);
    let e = 0;
    while (n % 1024 === 0) {
      n /= 1024;
      e++;
    }
    return String(n) + (BINARY_SUFFIXES[e] ?? "");
  }
  let e = 0;
  while (whole % 1024n === 0n) {
    whole /= 1024n;
    e++;
  }
  const suffix = BINARY_SUFFIXES[e];
  return suffix === undefined
    ? formatDecimal(magnitude, scale, "DecimalExponent")
    : whole.toString() + suffix;
}

/** DecimalSI / DecimalExponent: strip factors of ten, lower the exponent to a multiple of 3, add the suffix. */
function formatDecimal(magnitude: bigint, scale: number, format: "DecimalSI" | "DecimalExponent"): string {
  let digits = magnitude.toString();
  let end = digits.length;
  while (end > 1 && digits.charCodeAt(end - 1) === 48) end--;
  let exponent = scale + (digits.length - end);
  if (end < digits.length) digits = digits.slice(0, end);
  const r = ((exponent % 3) + 3) % 3;
  if (r === 1) digits += "0";
  else if (r === 2) digits += "00";
  exponent -= r;
  if (format === "DecimalSI") {
    const suffix = DECIMAL_SUFFIX_BY_EXPONENT.get(exponent);
    // Beyond `E` (or below `n`) DecimalSI has no suffix; upstream now falls back to the exponent form.
    if (suffix !== undefined) return digits + suffix;
  }
  return exponent === 0 ? digits : `${digits}e${exponent}`;
}

/** NewQuantity(n, format). */
export function quantityFromInt(n: bigint, format: QuantityFormat): Quantity {
  return { unscaled: n, scale: 0, format };
}

/** A quantity worth n × 10^-9 (the exact inverse of quantityNanos). */
export function quantityFromNanos(n: bigint, format: QuantityFormat): Quantity {
  return { unscaled: n, scale: -9, format };
}

/** The exact value × 10^9 (exact because quantities are never finer than 1n). */
export function quantityNanos(q: Quantity): bigint {
  const shift = q.scale + 9;
  if (shift === 9) return q.unscaled * 1_000_000_000n;
  return shift >= 0 ? q.unscaled * pow10(shift) : divPow10AwayFromZero(q.unscaled, -shift);
}

/**
 * `Quantity.Value()`: the integer value rounded away from zero (so `500m` → 1, `-1.5` → -2),
 * saturated to the int64 range as upstream's int64 path does (`AsScaledInt64`).
 */
export function quantityValue(q: Quantity): bigint {
  const { unscaled, scale } = q;
  if (unscaled === 0n) return 0n;
  let v: bigint;
  if (scale >= 0) {
    if (scale >= 19) return unscaled > 0n ? MAX_INT64 : MIN_INT64; // |value| >= 10^19
    v = scale === 0 ? unscaled : unscaled * pow10(scale);
  } else {
    v = divPow10AwayFromZero(unscaled, -scale);
  }
  return v > MAX_INT64 ? MAX_INT64 : v < MIN_INT64 ? MIN_INT64 : v;
}

/** `Quantity.Cmp`: exact, whatever the scales (huge exponents are settled by magnitude first). */
export function cmpQuantity(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const sa = quantitySign(a);
  const sb = quantitySign(b);
  if (sa !== sb) return sa > sb ? 1 : -1;
  if (sa === 0) return 0;
  let x = a.unscaled;
  let y = b.unscaled;
  const diff = a.scale - b.scale;
  if (diff > 18 || diff < -18) {
    // |u| × 10^s lies in [10^(digits+s-1), 10^(digits+s)): different decades decide without aligning.
    const ea = digitCount(abs(x)) + a.scale;
    const eb = digitCount(abs(y)) + b.scale;
    if (ea !== eb) return ea > eb ? sa : sa === 1 ? -1 : 1;
  }
  if (diff > 0) x *= pow10(diff);
  else if (diff < 0) y *= pow10(-diff);
  return x === y ? 0 : x > y ? 1 : -1;
}

function combine(a: Quantity, b: Quantity, negateB: boolean): Quantity {
  const scale = Math.min(a.scale, b.scale);
  const x = a.scale === scale ? a.unscaled : a.unscaled * pow10(a.scale - scale);
  const y = b.scale === scale ? b.unscaled : b.unscaled * pow10(b.scale - scale);
  // upstream Add/Sub: the result keeps the receiver's format, unless the receiver is zero.
  const format = a.unscaled === 0n ? b.format : a.format;
  return { unscaled: negateB ? x - y : x + y, scale, format };
}

/** `a.Add(b)`: exact sum, in a's format (b's when a is zero); the remembered text is dropped. */
export function addQuantity(a: Quantity, b: Quantity): Quantity {
  return combine(a, b, false);
}

/** `a.Sub(b)`: exact difference, in a's format (b's when a is zero); the remembered text is dropped. */
export function subQuantity(a: Quantity, b: Quantity): Quantity {
  return combine(a, b, true);
}

/** `Quantity.Sign()`. */
export function quantitySign(q: Quantity): -1 | 0 | 1 {
  return q.unscaled === 0n ? 0 : q.unscaled > 0n ? 1 : -1;
}

/** `Quantity.IsZero()`. */
export function isQuantityZero(q: Quantity): boolean {
  return q.unscaled === 0n;
}
