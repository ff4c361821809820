/** How a raw input value is named in issue messages (`got "100"`, `got -1`, `got an object`). */
import { EXACT_INT_PREFIX } from "./exact-integer.js";

/** Renders a raw value for an issue message: strings quoted, exact-integer sentinels as their digits. */
export function describeValue(v: unknown): string {
  if (typeof v === "string") {
    return v.startsWith(EXACT_INT_PREFIX) ? v.slice(EXACT_INT_PREFIX.length) : JSON.stringify(v);
  }
  if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (v === null) return "null";
  if (v === undefined) return "nothing";
  return Array.isArray(v) ? "a list" : "an object";
}
