/**
 * Go durations, exactly as `time.ParseDuration` reads them and `time.Duration.String()` prints them
 * (eviction grace periods, pressure transition period). Durations are int64 nanoseconds as bigint.
 */

/** A duration string Go would reject; `message` is Go's exact text (`time: invalid duration "x"`, ...). */
export class DurationError extends Error {
  readonly code = "duration";
  readonly input: string;
  constructor(message: string, input: string) {
    super(message);
    this.name = "DurationError";
    this.input = input;
  }
}

const SECOND = 1_000_000_000n;
const TWO_63 = 1n << 63n;

// Go's unitMap: both micro spellings (U+00B5 micro sign, U+03BC Greek mu) are accepted.
const UNITS: ReadonlyMap<string, bigint> = new Map([
  ["ns", 1n],
  ["us", 1_000n],
  ["\u00b5s", 1_000n],
  ["\u03bcs", 1_000n],
  ["ms", 1_000_000n],
  ["s", SECOND],
  ["m", 60n * SECOND],
  ["h", 3_600n * SECOND],
]);

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** UTF-8 bytes of a code point; lone surrogates become U+FFFD, as any Go string decoding would. */
function utf8Bytes(cp: number): number[] {
  if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
  if (cp < 0x80) return [cp];
  if (cp < 0x800) return [0xc0 | (cp >> 6), 0x80 | (cp & 0x3f)];
  if (cp < 0x10000) return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
  return [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
}

/**
 * The time package's private `quote` (not strconv.Quote): ASCII control characters and every
 * non-ASCII character are written as `\x` escapes of their UTF-8 bytes; `"` and `\` get a backslash.
 */
function quoteTime(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0x80 || cp < 0x20) {
      for (const b of utf8Bytes(cp)) out += "\\x" + b.toString(16).padStart(2, "0");
    } else {
      if (ch === '"' || ch === "\\") out += "\\";
      out += ch;
    }
  }
  return out + '"';
}

/** Parse like Go's `time.ParseDuration`: returns int64 nanoseconds or throws DurationError. */
export function parseGoDuration(text: string): bigint {
  const invalid = (): DurationError => new DurationError(`time: invalid duration ${quoteTime(text)}`, text);
  let s = text;
  let neg = false;
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n; // special case: a bare zero needs no unit
  if (s === "") throw invalid();
  let d = 0n;
  while (s !== "") {
    const c0 = s.charCodeAt(0);
    if (!(c0 === 46 || isDigit(c0))) throw invalid();
    // leadingInt: [0-9]*, overflow past 2^63 is an error.
    let v = 0n;
    let i = 0;
    for (; i < s.length && isDigit(s.charCodeAt(i)); i++) {
      if (v > TWO_63 / 10n) throw invalid();
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > TWO_63) throw invalid();
    }
    const pre = i > 0;
    s = s.slice(i);
    // leadingFraction: (\.[0-9]*)?, which stops accumulating precision instead of failing.
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s !== "" && s.charCodeAt(0) === 46) {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      for (; j < s.length && isDigit(s.charCodeAt(j)); j++) {
        if (overflow) continue;
        if (f > (TWO_63 - 1n) / 10n) {
          overflow = true;
          continue;
        }
        const y = f * 10n + BigInt(s.charCodeAt(j) - 48);
        if (y > TWO_63) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) throw invalid(); // no digits, e.g. ".s"
    let k = 0;
    while (k < s.length && !(s.charCodeAt(k) === 46 || isDigit(s.charCodeAt(k)))) k++;
    if (k === 0) throw new DurationError(`time: missing unit in duration ${quoteTime(text)}`, text);
    const u = s.slice(0, k);
    s = s.slice(k);
    const unit = UNITS.get(u);
    if (unit === undefined) {
      throw new DurationError(`time: unknown unit ${quoteTime(u)} in duration ${quoteTime(text)}`, text);
    }
    if (v > TWO_63 / unit) throw invalid();
    v *= unit;
    if (f > 0n) {
      // Go computes the fraction in float64 (nanosecond-accurate up to hours) and truncates.
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > TWO_63) throw invalid();
    }
    // d is a uint64 in Go: 2^63 + 2^63 wraps to 0 and is accepted (faithful quirk).
    d = BigInt.asUintN(64, d + v);
    if (d > TWO_63) throw invalid();
  }
  if (neg) return -d; // -2^63 is reachable, as in Go
  if (d > TWO_63 - 1n) throw invalid();
  return d;
}

/** Digits of v mod 10^prec without trailing zeros (and no point when they are all zero), plus v / 10^prec. */
function fraction(v: bigint, prec: number): [string, bigint] {
  let out = "";
  let print = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    print ||= digit !== 0n;
    if (print) out = digit.toString() + out;
    v /= 10n;
  }
  return [print ? "." + out : "", v];
}

/** Print like Go's `Duration.String()`: `0s`, `1.5µs`, `300ms`, `1m30s`, `2h45m0s`; input wraps to int64. */
export function formatGoDuration(ns: bigint): string {
  const d = BigInt.asIntN(64, ns);
  const neg = d < 0n;
  const u = neg ? -d : d;
  let out: string;
  if (u < SECOND) {
    if (u === 0n) return "0s";
    // Below one second Go switches to the largest smaller unit, e.g. 1.2ms.
    const [prec, unit] = u < 1_000n ? [0, "ns"] : u < 1_000_000n ? [3, "\u00b5s"] : [6, "ms"];
    const [frac, whole] = fraction(u, prec);
    out = whole.toString() + frac + unit;
  } else {
    const [frac, seconds] = fraction(u, 9);
    out = `${seconds % 60n}${frac}s`;
    const minutes = seconds / 60n;
    if (minutes > 0n) {
      out = `${minutes % 60n}m${out}`;
      const hours = minutes / 60n; // stops at hours: days have different lengths
      if (hours > 0n) out = `${hours}h${out}`;
    }
  }
  return neg ? "-" + out : out;
}

/** Nanoseconds as (possibly fractional) milliseconds, for the engine's epoch-ms clock. */
export function durationToMs(ns: bigint): number {
  return Number(ns / 1_000_000n) + Number(ns % 1_000_000n) / 1e6;
}

/** Milliseconds (fractions allowed) as a Go duration string: 1500 → `1.5s`, 300000 → `5m0s`. */
export function formatDurationMs(ms: number): string {
  return formatGoDuration(BigInt(Math.round(ms * 1_000_000)));
}
