/**
 * RFC 3339 time stamps, both ways: parsed as Go's `time.Time` JSON decoding reads them (into epoch
 * milliseconds; hand-rolled over char codes because a replay decodes thousands of them per second of
 * input), and written as Go's `time.RFC3339Nano` layout writes them (UTC, the fraction without
 * trailing zeros), from epoch nanoseconds or epoch milliseconds.
 */
import type { EpochMs } from "../model.js";

/** Go's zero `time.Time` (0001-01-01T00:00:00Z) in epoch milliseconds. */
export const GO_ZERO_TIME_MS = -62_135_596_800_000;

const MS_PER_DAY = 86_400_000;

/**
 * Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`. Returns epoch milliseconds with the sub-millisecond
 * part kept to microseconds as a fraction, `"zero"` for Go's zero time (the instant, whatever the
 * offset: Go's `IsZero` compares instants), or `"invalid"`.
 *
 * Like Go (since 1.20, strict RFC 3339 in `UnmarshalJSON`): upper-case `T` and `Z` only, `.` as the
 * fraction separator with at least one digit, digits past nanoseconds ignored, calendar-checked days,
 * no leap second (second 60), offset hours below 24.
 */
export function parseRfc3339(text: string): EpochMs | "zero" | "invalid" {
  const n = text.length;
  if (n < 20) return "invalid";
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  if (
    year < 0 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth(year, month) ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 59 ||
    text.charCodeAt(4) !== 0x2d || // -
    text.charCodeAt(7) !== 0x2d ||
    text.charCodeAt(10) !== 0x54 || // T
    text.charCodeAt(13) !== 0x3a || // :
    text.charCodeAt(16) !== 0x3a
  ) {
    return "invalid";
  }

  let i = 19;
  let micros = 0;
  let subMicro = false;
  if (text.charCodeAt(i) === 0x2e) {
    // .
    i++;
    const start = i;
    while (i < n && isDigit(text.charCodeAt(i))) {
      const d = text.charCodeAt(i) - 0x30;
      const place = i - start;
      if (place < 6) micros += d * 10 ** (5 - place);
      else if (d !== 0) subMicro = true;
      i++;
    }
    if (i === start) return "invalid";
  }

  let offsetMinutes: number;
  const zone = text.charCodeAt(i);
  if (zone === 0x5a && i + 1 === n) {
    // Z
    offsetMinutes = 0;
  } else if ((zone === 0x2b || zone === 0x2d) && i + 6 === n && text.charCodeAt(i + 3) === 0x3a) {
    // + or -, then HH:MM
    const oh = digits(text, i + 1, 2);
    const om = digits(text, i + 4, 2);
    if (oh < 0 || oh > 23 || om < 0 || om > 59) return "invalid";
    offsetMinutes = (zone === 0x2d ? -1 : 1) * (oh * 60 + om);
  } else {
    return "invalid";
  }

  const wholeMs =
    daysFromCivil(year, month, day) * MS_PER_DAY +
    ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000;
  if (wholeMs === GO_ZERO_TIME_MS && micros === 0 && !subMicro) return "zero";
  // Whole milliseconds plus a microsecond fraction: distinct microseconds stay distinct doubles while
  // |ms| < 2^43 (until the year 2248), which covers every time stamp a kubelet reports.
  return micros === 0 ? wholeMs : wholeMs + micros / 1000;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** The decimal number in `text[at, at+count)`, or -1 if any of those is not a digit. */
function digits(text: string, at: number, count: number): number {
  let v = 0;
  for (let i = at; i < at + count; i++) {
    const c = text.charCodeAt(i);
    if (!isDigit(c)) return -1;
    v = v * 10 + (c - 0x30);
  }
  return v;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (works for years 0–9999, unlike `Date.UTC`, which
 * maps years 0–99 to 1900–1999). Counts from March so the leap day falls at the end of a cycle year.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/**
 * `parseRfc3339` with a memo: a summary repeats a handful of time stamps hundreds of times (all stats
 * of one scrape share a few), and a string comparison or Map hit is cheaper than a parse. One per
 * summary, so it holds no more than that summary's distinct time stamps.
 */
export class Rfc3339Memo {
  private readonly seen = new Map<string, EpochMs | "zero" | "invalid">();
  private lastText: string | undefined;
  private lastResult: EpochMs | "zero" | "invalid" = "invalid";

  parse(text: string): EpochMs | "zero" | "invalid" {
    if (text === this.lastText) return this.lastResult;
    let result = this.seen.get(text);
    if (result === undefined) {
      result = parseRfc3339(text);
      this.seen.set(text, result);
    }
    this.lastText = text;
    this.lastResult = result;
    return result;
  }
}

const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;

/**
 * Formats `ns` (nanoseconds after the Unix epoch) as `2026-06-26T10:14:35.123456789Z`, dropping
 * trailing zeros of the fraction and the dot with them, as Go's `RFC3339Nano` layout does.
 *
 * Upstream's `metav1.Time` marshals whole seconds only; evictd writes the fraction because it samples
 * more often than once a second and the engine's freshness filter (an observation counts only if
 * newer than the last) needs to tell the samples apart. {@link parseRfc3339} reads fractions, as Go's
 * decoder does.
 */
export function formatRfc3339Nano(ns: bigint): string {
  let seconds = ns / NS_PER_S;
  let fraction = ns % NS_PER_S;
  if (fraction < 0n) {
    // Before 1970: floor the seconds so the fraction stays positive.
    seconds -= 1n;
    fraction += NS_PER_S;
  }
  const base = secondPrefix(Number(seconds));
  if (fraction === 0n) return `${base}Z`;
  return `${base}.${trimmedFraction(Number(fraction))}Z`;
}

/**
 * `2026-06-26T10:14:35` for whole seconds after the epoch, by calendar arithmetic (the inverse of
 * {@link daysFromCivil}): a collector stamps hundreds of figures per read, and a `Date` and
 * `toISOString` for each was a measurable part of a 110-pod read. Years outside 0–9999, which
 * RFC 3339 cannot write, are left to `toISOString`'s extended form.
 */
function secondPrefix(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const secondOfDay = seconds - days * 86_400;
  const { year, month, day } = civilFromDays(days);
  if (year < 0 || year > 9999) return new Date(seconds * 1000).toISOString().slice(0, -5);
  const hh = Math.floor(secondOfDay / 3600);
  const mm = Math.floor((secondOfDay % 3600) / 60);
  const ss = secondOfDay % 60;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hh, 2)}:${pad(mm, 2)}:${pad(ss, 2)}`;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

/** The proleptic Gregorian date of a day count since 1970-01-01 (days counted from March, as above). */
function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** 1..999 999 999 nanoseconds as Go writes a fraction: nine digits, trailing zeros dropped. */
function trimmedFraction(nanos: number): string {
  let digits = 9;
  let n = nanos;
  while (n % 10 === 0) {
    n /= 10;
    digits--;
  }
  return String(n).padStart(digits, "0");
}

/**
 * Recently formatted times: a replay step's observations mostly share a handful of time stamps, and
 * the same ones recur from step to step until the next sample. Bounded, so a long replay cannot grow
 * it; a cache of a pure function, so callers cannot observe it.
 */
const recentMs = new Map<number, string>();

/**
 * Formats epoch milliseconds (possibly fractional, as {@link parseRfc3339} returns them) the same way,
 * to the microsecond: the precision {@link parseRfc3339} keeps, and about all a double holding epoch
 * milliseconds can carry (its spacing near 2026 is a quarter of a microsecond), so finer digits would
 * be rounding noise. `2025-01-01T00:00:00Z`, `…:00.25Z`, `…:00.000123Z`.
 */
export function formatRfc3339Ms(ms: number): string {
  let text = recentMs.get(ms);
  if (text === undefined) {
    if (recentMs.size >= 1024) recentMs.clear();
    const whole = Math.floor(ms);
    const micros = BigInt(Math.round((ms - whole) * 1000));
    text = formatRfc3339Nano(BigInt(whole) * NS_PER_MS + micros * 1000n);
    recentMs.set(ms, text);
  }
  return text;
}
