/**
 * Summary API counters (uint64 upstream): which raw values are acceptable, and the bigint they decode
 * to. Accepted: non-negative safe-integer numbers, bigints (the YAML reader's exact integers) and the
 * JSON reader's exact-integer sentinel strings, all within uint64.
 */
import { describeValue } from "../raw/describe-value.js";
import { exactInteger } from "./exact-integer.js";

/** 2^64 − 1, the largest value Go's uint64 fields can carry. */
export const UINT64_MAX = 0xffff_ffff_ffff_ffffn;

const EXPECTED = "expected a non-negative integer (uint64)";

/** Why `v` is not a valid counter, as an issue message; `undefined` when it is one. */
export function counterProblem(v: unknown): string | undefined {
  if (typeof v === "number") {
    if (Number.isSafeInteger(v) && v >= 0) return undefined;
    if (Number.isInteger(v) && v > 0) {
      // Only reachable when the input came through a reader without exact integers (plain
      // JSON.parse): the digits have already been rounded, so the value cannot be trusted.
      return `${EXPECTED}, got ${String(v)}, which is beyond 2^53 and was rounded when read`;
    }
    return `${EXPECTED}, got ${String(v)}`;
  }
  const exact = exactInteger(v);
  if (exact !== undefined) {
    return exact >= 0n && exact <= UINT64_MAX ? undefined : `${EXPECTED}, got ${exact.toString()}`;
  }
  return `${EXPECTED}, got ${describeValue(v)}`;
}

/**
 * The counter `v` holds. Callers pass values `counterProblem` accepted; anything else gives
 * `undefined` rather than throwing, so a decoder trusting pre-validated input stays total.
 */
export function toCounter(v: unknown): bigint | undefined {
  // Numbers come first: almost every counter in real data is a plain JSON number.
  if (typeof v === "number") return Number.isSafeInteger(v) ? BigInt(v) : undefined;
  return exactInteger(v);
}
