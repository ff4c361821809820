/** Epoch nanoseconds → RFC 3339 text as Go's `time.RFC3339Nano` writes it (UTC, fraction without trailing zeros). */

const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;

/**
 * Formats `ns` (nanoseconds after the Unix epoch) as `2026-06-26T10:14:35.123456789Z`, dropping
 * trailing zeros of the fraction and the dot with them, as Go's `RFC3339Nano` layout does.
 *
 * Upstream's `metav1.Time` marshals whole seconds only; the collector writes the fraction because
 * the daemon samples more often than once a second and the engine's freshness filter (an
 * observation counts only if newer than the last) needs to tell the samples apart. The engine's
 * RFC 3339 reader accepts fractions, as Go's does.
 */
export function formatRfc3339Nano(ns: bigint): string {
  let seconds = ns / NS_PER_S;
  let fraction = ns % NS_PER_S;
  if (fraction < 0n) {
    // Before 1970: floor the seconds so the fraction stays positive.
    seconds -= 1n;
    fraction += NS_PER_S;
  }
  const iso = new Date(Number(seconds) * 1000).toISOString(); // 2026-06-26T10:14:35.000Z
  const base = iso.slice(0, iso.length - 5);
  if (fraction === 0n) return `${base}Z`;
  return `${base}.${fraction.toString().padStart(9, "0").replace(/0+$/, "")}Z`;
}

/** Formats epoch milliseconds (a `Date.now()` value, possibly fractional) the same way. */
export function formatRfc3339Ms(ms: number): string {
  const whole = Math.floor(ms);
  const subMsNs = BigInt(Math.round((ms - whole) * 1e6));
  return formatRfc3339Nano(BigInt(whole) * NS_PER_MS + subMsNs);
}
