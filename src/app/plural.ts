/**
 * Counts in printed text: `count(1, "eviction")` is "1 eviction", `count(2, "eviction")` "2
 * evictions", and never "1 evictions" or "2 eviction(s)". Every CLI line, report and page that
 * prints a count of things says it through this one function.
 */

/** `n` and the noun, singular for exactly one, else `plural` (the singular with an `s`). */
export function count(n: number | bigint, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 || n === 1n ? singular : plural}`;
}
