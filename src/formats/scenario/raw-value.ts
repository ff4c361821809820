/**
 * Parsed scenario data is untyped until checked: the mapping test every check starts with, and how
 * an offending value is quoted in messages (uint64 counters arrive as bigint).
 */
export type RawObject = Record<string, unknown>;

export const isRawObject = (v: unknown): v is RawObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The value as written: JSON for data, decimal digits for a bigint. */
export const showValue = (v: unknown): string =>
  typeof v === "bigint" ? v.toString() : (JSON.stringify(v) ?? String(v));
