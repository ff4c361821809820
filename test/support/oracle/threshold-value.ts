/**
 * Eviction threshold values (`500Mi` or `10%`) as the tests' oracle reads them, the way the kubelet
 * does (docs/kubelet-semantics.md §2.4): a percentage is a float32 fraction, and a percentage
 * threshold is `trunc(capacity × fraction)` bytes. Independent of src/core.
 */
import { parseQuantity, quantityMilli, sameQuantity } from "./quantity.js";

/** `10%` as the float32 fraction the kubelet keeps (`float32(10)/100`); undefined without `%`. */
export function percentFraction(text: string): number | undefined {
  if (!text.endsWith("%")) return undefined;
  const v = Number.parseFloat(text.replace(/%+$/, ""));
  return Number.isNaN(v) ? undefined : Math.fround(Math.fround(v) / 100);
}

/** Same threshold value: both percentages with equal float32 fractions, or equal quantities. */
export function sameThresholdValue(expected: string, actual: unknown): boolean {
  if (typeof actual !== "string" && typeof actual !== "number") return false;
  const a = String(actual);
  const ep = percentFraction(expected);
  const ap = percentFraction(a);
  if (ep !== undefined || ap !== undefined) return ep !== undefined && ap !== undefined && ep === ap;
  return parseQuantity(expected) !== undefined && sameQuantity(expected, a);
}

/** A threshold's value in whole units (bytes, inodes, pids) against the signal's capacity. */
export function thresholdAmount(value: string, capacity: bigint): bigint {
  const fraction = percentFraction(value);
  if (fraction === undefined) return quantityMilli(value) / 1000n;
  return BigInt(Math.trunc(Number(capacity) * fraction));
}
