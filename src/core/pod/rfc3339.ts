/**
 * RFC 3339 timestamps (`metav1.Time`, Go's `time.RFC3339` layout) to epoch milliseconds, without
 * the platform Date parser: exact ranges, fractional seconds kept to the microsecond.
 */
import type { EpochMs } from "../model.js";

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Parses `2026-06-26T10:12:51Z` or `2026-06-26T10:12:51.406244668+02:00`. Go accepts a fractional
 * second when parsing even though the layout has none. Returns undefined when malformed or out of
 * range (month 13, second 60, offset hour 24 are all refused by Go).
 */
export function parseRfc3339(text: string): EpochMs | undefined {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [, ys, mos, ds, hs, mis, ss, frac, z, sign, ohs, oms] = m;
  const year = Number(ys);
  const month = Number(mos);
  const day = Number(ds);
  const hour = Number(hs);
  const minute = Number(mis);
  const second = Number(ss);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (z === undefined) {
    const oh = Number(ohs);
    const om = Number(oms);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (sign === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const wholeSeconds =
    daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60;
  // Keep microseconds (the model's precision); nanoseconds below that are truncated.
  const micros = frac === undefined ? 0 : Number(frac.padEnd(9, "0").slice(0, 6));
  return wholeSeconds * 1000 + micros / 1000;
}
