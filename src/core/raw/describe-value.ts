/**
 * How an offending input value is named in issue messages, the same way everywhere (kubelet config,
 * Summary, pods, node files, scenarios): `expected a quantity, got "lots"`, `got -1`, `got a list`.
 * Scalars are shown as written, so the user can find them in the file; lists and objects are named,
 * not dumped, because they can be any size.
 */
import { EXACT_INT_PREFIX } from "../summary/exact-integer.js";

/**
 * Renders a raw value for an issue message: strings quoted as JSON, numbers, bigints and booleans
 * as written, exact-integer sentinels (see `EXACT_INT_PREFIX`) as their digits, `null`, `nothing`
 * for an absent value, and `a list` or `an object` for the rest.
 */
export function describeValue(v: unknown): string {
  if (typeof v === "string") {
    return v.startsWith(EXACT_INT_PREFIX) ? v.slice(EXACT_INT_PREFIX.length) : JSON.stringify(v);
  }
  if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (v === null) return "null";
  if (v === undefined) return "nothing";
  if (Array.isArray(v)) return "a list";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}
