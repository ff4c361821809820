/**
 * Go durations (`time.ParseDuration` / `Duration.String`) for the tests' oracle, independent of
 * src/core: parsing to nanoseconds, and the whole-second formatting the replay output uses.
 */

const UNIT_NS: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

const DURATION = /^([+-]?)((?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+)$/;
const PART = /([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)/g;

/** A Go duration string in nanoseconds; undefined when malformed. */
export function parseGoDuration(text: string): number | undefined {
  const t = text.trim();
  if (t === "0" || t === "+0" || t === "-0") return 0;
  const m = DURATION.exec(t);
  if (m === null) return undefined;
  let total = 0;
  for (const part of (m[2] ?? "").matchAll(PART)) {
    total += Number.parseFloat(part[1] ?? "0") * (UNIT_NS[part[2] ?? ""] ?? Number.NaN);
  }
  return m[1] === "-" ? -total : Math.round(total);
}

/** Both are Go durations of the same length (`90s` = `1m30s`). */
export function sameGoDuration(expected: string, actual: unknown): boolean {
  if (typeof actual !== "string") return false;
  const e = parseGoDuration(expected);
  return e !== undefined && e === parseGoDuration(actual);
}

/** `Duration.String()` of a whole number of seconds: `0s`, `50s`, `1m40s`, `1h0m5s`. */
export function formatGoSeconds(seconds: number): string {
  if (seconds === 0) return "0s";
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`;
}
