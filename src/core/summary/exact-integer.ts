/**
 * Exact integers that travel through JSON.parse: the sentinel string the JSON reader substitutes for
 * numbers a double cannot hold (uint64 counters such as 18446744073709551615), and the reader of it.
 */

/**
 * Prefix of the sentinel string `parseJsonExact` writes in place of a numeric token too large for a
 * double. The NUL character keeps it from colliding with any realistic string in a Summary object.
 * The token text follows verbatim (`\u0000int:18446744073709551615`, `\u0000int:-99999999999999999`).
 */
export const EXACT_INT_PREFIX = "\u0000int:";

const INTEGER_TOKEN = /^-?\d+$/;

/**
 * The exact integer `v` stands for: a safe-integer number, a bigint, or a sentinel string holding an
 * integer token. Anything else (fractions, unsafe numbers whose digits are already lost, plain strings,
 * sentinels holding a fractional or exponent token) gives `undefined`.
 */
export function exactInteger(v: unknown): bigint | undefined {
  if (typeof v === "number") return Number.isSafeInteger(v) ? BigInt(v) : undefined;
  if (typeof v === "bigint") return v;
  if (typeof v === "string" && v.startsWith(EXACT_INT_PREFIX)) {
    const digits = v.slice(EXACT_INT_PREFIX.length);
    return INTEGER_TOKEN.test(digits) ? BigInt(digits) : undefined;
  }
  return undefined;
}
