/**
 * A threshold as a person reads it, on the live page and in `evictd explain`: as it was written,
 * and, for a percentage, what it comes to on this node: `10% (91.1 GiB)` for bytes (binary
 * units, as the charts' axes), `10% (419430)` for inode and PID counts. A quantity is printed as
 * written (`500Mi`); the exact resolved figure stays in /status's `quantity`.
 */
import type { Signal } from "../../core/model.js";
import { parseQuantity, quantityValue } from "../../core/quantity.js";
import { SIGNALS } from "../../core/signals.js";
import { amount } from "./report-html.js";

export function thresholdText(
  signal: Signal,
  t: { readonly value: string; readonly quantity?: string | undefined },
): string {
  if (!t.value.endsWith("%") || t.quantity === undefined) return t.value;
  return `${t.value} (${resolved(signal, t.quantity)})`;
}

/** The resolved quantity in bytes with a binary unit, or as a plain count. */
function resolved(signal: Signal, quantity: string): string {
  let n: bigint;
  try {
    n = quantityValue(parseQuantity(quantity));
  } catch {
    return quantity;
  }
  return SIGNALS[signal].unit === "bytes" ? amount(Number(n), "bytes") : String(n);
}
