/**
 * Kubelet eviction percentages: `parsePercentage` (Go `strconv.ParseFloat(s, 32)` on the text without
 * its trailing `%`s, then a float32 division by 100) and `GetThresholdQuantity`'s percent-of-capacity.
 */
import { goQuote } from "./go-quote.js";

/** A percentage Go's ParseFloat rejects; `message` is Go's exact `*strconv.NumError` text. */
export class PercentageError extends Error {
  readonly code = "percentage";
  readonly input: string;
  readonly reason: "syntax" | "range";
  constructor(message: string, input: string, reason: "syntax" | "range") {
    super(message);
    this.name = "PercentageError";
    this.input = input;
    this.reason = reason;
  }
}

/** The outcome of `strconv.ParseFloat(s, 32)`: a float32 value (as a number) or the error class. */
export type Float32Parse =
  { readonly ok: true; readonly value: number } | { readonly ok: false; readonly reason: "syntax" | "range" };

const SYNTAX: Float32Parse = { ok: false, reason: "syntax" };
const RANGE: Float32Parse = { ok: false, reason: "range" };

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
/** Go's `lower(c)`: c | 0x20, which maps ASCII upper-case letters to lower case. */
const lower = (c: number): number => c | 0x20;

/** Length of the common prefix of s and a lower-case word, ignoring ASCII case in s. */
function commonPrefixIgnoreCase(s: string, word: string): number {
  const n = Math.min(s.length, word.length);
  for (let i = 0; i < n; i++) {
    let c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) c += 32;
    if (c !== word.charCodeAt(i)) return i;
  }
  return n;
}

/** Go's `special`: `inf`/`infinity` (optionally signed) and `nan` (unsigned), any case. */
function special(s: string): { value: number; length: number } | undefined {
  const c = s.charCodeAt(0);
  if (c === 110 || c === 78)
    return commonPrefixIgnoreCase(s, "nan") === 3 ? { value: NaN, length: 3 } : undefined;
  const signed = c === 43 || c === 45;
  if (!signed && c !== 105 && c !== 73) return undefined;
  let n = commonPrefixIgnoreCase(signed ? s.slice(1) : s, "infinity");
  if (n > 3 && n < 8) n = 3; // only "inf" is consumed unless the whole of "infinity" is there
  if (n !== 3 && n !== 8) return undefined;
  return { value: c === 45 ? -Infinity : Infinity, length: (signed ? 1 : 0) + n };
}

/** Go's `underscoreOK`: underscores only between digits (or right after a base prefix). */
function underscoreOK(s: string): boolean {
  let saw = "^";
  let i = 0;
  if (s[0] === "-" || s[0] === "+") s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === "0" && [98, 111, 120].includes(lower(s.charCodeAt(1)))) {
    i = 2;
    saw = "0";
    hex = lower(s.charCodeAt(1)) === 120;
  }
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isDigit(c) || (hex && lower(c) >= 97 && lower(c) <= 102)) {
      saw = "0";
    } else if (c === 95) {
      if (saw !== "0") return false;
      saw = "_";
    } else {
      if (saw === "_") return false;
      saw = "!";
    }
  }
  return saw !== "_";
}

interface ReadFloat {
  readonly length: number;
  readonly negative: boolean;
  readonly hex: boolean;
  /** Significant digits (leading zeros dropped); empty means zero. */
  readonly digits: string;
  /** Value = digits × base^(dp - digits.length) for decimal; × 2^(dp - 4·digits.length) for hex. */
  readonly dp: number;
}

/** Go's `readFloat`, keeping every significant digit (Go keeps 19 plus a sticky bit; same rounding). */
function readFloat(s: string): ReadFloat | undefined {
  let i = 0;
  let underscores = false;
  let negative = false;
  if (s.length === 0) return undefined;
  if (s[0] === "+") i++;
  else if (s[0] === "-") {
    i++;
    negative = true;
  }
  let hex = false;
  if (i + 2 < s.length && s[i] === "0" && lower(s.charCodeAt(i + 1)) === 120) {
    hex = true;
    i += 2;
  }
  let sawDot = false;
  let sawDigits = false;
  let nd = 0;
  let dp = 0;
  let digits = "";
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 95) {
      underscores = true;
    } else if (c === 46) {
      if (sawDot) break;
      sawDot = true;
      dp = nd;
    } else if (isDigit(c) || (hex && lower(c) >= 97 && lower(c) <= 102)) {
      sawDigits = true;
      if (c === 48 && nd === 0) {
        dp--; // leading zeros only move the point
        continue;
      }
      nd++;
      digits += s[i];
    } else {
      break;
    }
  }
  if (!sawDigits) return undefined;
  if (!sawDot) dp = nd;
  if (hex) dp *= 4;
  if (i < s.length && lower(s.charCodeAt(i)) === (hex ? 112 : 101)) {
    i++;
    if (i >= s.length) return undefined;
    let sign = 1;
    if (s[i] === "+") i++;
    else if (s[i] === "-") {
      i++;
      sign = -1;
    }
    if (i >= s.length || !isDigit(s.charCodeAt(i))) return undefined;
    let e = 0;
    for (; i < s.length && (isDigit(s.charCodeAt(i)) || s[i] === "_"); i++) {
      if (s[i] === "_") underscores = true;
      else if (e < 10000) e = e * 10 + s.charCodeAt(i) - 48; // Go stops accumulating huge exponents
    }
    dp += e * sign;
  } else if (hex) {
    return undefined; // hex floats need a p exponent
  }
  if (underscores && !underscoreOK(s.slice(0, i))) return undefined;
  return { length: i, negative, hex, digits, dp };
}

const bitLength = (n: bigint): number => n.toString(2).length;

/** The float32 nearest to num/den (both > 0), ties to even; overflow means "rounds to ±Inf". */
function roundToFloat32(num: bigint, den: bigint): { value: number; overflow: boolean } {
  const bl = bitLength(num) - bitLength(den); // num/den lies in (2^(bl-1), 2^(bl+1))
  if (bl - 1 >= 128) return { value: Infinity, overflow: true };
  if (bl + 1 <= -150) return { value: 0, overflow: false }; // below half the smallest subnormal
  let e2 = (bl >= 0 ? num >= den << BigInt(bl) : num << BigInt(-bl) >= den) ? bl : bl - 1;
  if (e2 < -126) e2 = -126; // subnormals share the smallest exponent
  const shift = 23 - e2;
  const n = shift >= 0 ? num << BigInt(shift) : num;
  const d = shift >= 0 ? den : den << BigInt(-shift);
  let m = n / d;
  const twice = 2n * (n - m * d);
  if (twice > d || (twice === d && (m & 1n) === 1n)) m += 1n;
  if (m === 1n << 24n) {
    m >>= 1n;
    e2 += 1;
  }
  if (e2 > 127) return { value: Infinity, overflow: true };
  return { value: Number(m) * 2 ** (e2 - 23), overflow: false };
}

/** `strconv.ParseFloat(s, 32)`: correctly rounded float32, ±Inf/NaN spellings, hex floats, underscores. */
export function parseGoFloat32(s: string): Float32Parse {
  const sp = special(s);
  if (sp !== undefined) return sp.length === s.length ? { ok: true, value: sp.value } : SYNTAX;
  const r = readFloat(s);
  if (r === undefined || r.length !== s.length) return SYNTAX;
  const zero = r.negative ? -0 : 0;
  if (r.digits === "") return { ok: true, value: zero };
  let rounded: { value: number; overflow: boolean };
  if (r.hex) {
    const mantissa = BigInt("0x" + r.digits);
    const p = r.dp - 4 * r.digits.length;
    const top = bitLength(mantissa) + p; // value in [2^(top-1), 2^top)
    if (top - 1 >= 128) rounded = { value: Infinity, overflow: true };
    else if (top <= -150) rounded = { value: 0, overflow: false };
    else rounded = roundToFloat32(p >= 0 ? mantissa << BigInt(p) : mantissa, p >= 0 ? 1n : 1n << BigInt(-p));
  } else {
    const mantissa = BigInt(r.digits);
    const p = r.dp - r.digits.length;
    const top = r.dp; // value in [10^(top-1), 10^top)
    if (top - 1 >= 39) rounded = { value: Infinity, overflow: true };
    else if (top <= -46) rounded = { value: 0, overflow: false };
    else
      rounded = roundToFloat32(
        p >= 0 ? mantissa * 10n ** BigInt(p) : mantissa,
        p >= 0 ? 1n : 10n ** BigInt(-p),
      );
  }
  if (rounded.overflow) return RANGE;
  return { ok: true, value: r.negative ? -rounded.value : rounded.value };
}

/** Go's `strings.TrimRight(s, "%")`. */
function trimPercent(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 37) end--;
  return text.slice(0, end);
}

/**
 * Kubelet `parsePercentage`: strip every trailing `%`, ParseFloat at 32 bits, divide by 100 in float32.
 * So `10%` is 0.10000000149011612 and `10%%` is accepted. Throws PercentageError with Go's message.
 */
export function parsePercentage(text: string): number {
  const rest = trimPercent(text);
  const parsed = parseGoFloat32(rest);
  if (!parsed.ok) {
    const what = parsed.reason === "syntax" ? "invalid syntax" : "value out of range";
    throw new PercentageError(`strconv.ParseFloat: parsing ${goQuote(rest)}: ${what}`, text, parsed.reason);
  }
  return Math.fround(Math.fround(parsed.value) / 100);
}

const TWO_63 = 2 ** 63;
const MIN_INT64 = -(1n << 63n);

/**
 * `GetThresholdQuantity` for a percentage: `int64(float64(capacity.Value()) * float64(fraction))`.
 * Go leaves out-of-range float→int conversions implementation-defined; on amd64 (CVTTSD2SQ) NaN, ±Inf
 * and anything outside int64 become -9223372036854775808, which is what this returns.
 */
export function percentOf(capacity: bigint, fraction: number): bigint {
  const product = Number(capacity) * fraction;
  if (Number.isNaN(product) || product >= TWO_63 || product < -TWO_63) return MIN_INT64;
  return BigInt(Math.trunc(product));
}

/** The user's percentage text with exactly one trailing `%` (`10%%` → `10%`), for display. */
export function formatPercentage(text: string): string {
  return trimPercent(text) + "%";
}
