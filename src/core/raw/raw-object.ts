/**
 * Parsed JSON and YAML (`unknown`) is untyped until checked, and every check of a mapping starts with
 * the same question: is this a plain object? One guard for the whole tree, so that a list or `null`
 * is never mistaken for one anywhere.
 */

/** A parsed JSON/YAML mapping: not null, not a list. Read-only: checks read input, they never edit it. */
export type RawObject = Readonly<Record<string, unknown>>;

/** Whether a parsed value is a mapping (a JSON object); lists and `null` are not. */
export function isRawObject(value: unknown): value is RawObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
