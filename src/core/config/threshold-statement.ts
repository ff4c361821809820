/**
 * Parsing of single eviction map values, as upstream `helpers.go` does it: a threshold statement
 * (`parseThresholdStatement`), a minimum reclaim (`parseMinimumReclaims`) and a soft grace period
 * (`parseGracePeriods`). Each returns a value or upstream's exact error text, never throws.
 */
import { DurationError, parseGoDuration } from "../time/duration.js";
import type { Signal, ThresholdValue } from "../model.js";
import { PercentageError, parsePercentage } from "../percentage.js";
import { type Quantity, QuantityError, formatQuantity, parseQuantity, quantitySign } from "../quantity.js";
import { isSignal } from "../signals.js";

export type StatementResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: string; readonly message: string };

function fail(
  code: string,
  message: string,
): { readonly ok: false; readonly code: string; readonly message: string } {
  return { ok: false, code, message };
}

/** `unsupported eviction signal <key>`: the key has no resource mapping (it is not trimmed). */
export function checkSignal(key: string): StatementResult<Signal> {
  return isSignal(key)
    ? { ok: true, value: key }
    : fail("unsupported-signal", `unsupported eviction signal ${key}`);
}

function percentage(value: string): StatementResult<number> {
  try {
    return { ok: true, value: parsePercentage(value) };
  } catch (e) {
    if (!(e instanceof PercentageError)) throw e;
    return fail("invalid-percentage", e.message);
  }
}

function quantity(value: string): StatementResult<Quantity> {
  try {
    return { ok: true, value: parseQuantity(value) };
  } catch (e) {
    if (!(e instanceof QuantityError)) throw e;
    // apimachinery's texts do not repeat the input, so it is appended to name the offending value.
    return fail("invalid-quantity", `${e.message} (value ${JSON.stringify(value)})`);
  }
}

/**
 * A hard or soft threshold value. `null` means "ignored": only the exact strings `0%` and `100%`
 * disable a threshold (`0.0%`, `00%` and `100.0%` do not).
 */
export function parseThresholdValue(signal: Signal, value: string): StatementResult<ThresholdValue | null> {
  if (value.endsWith("%")) {
    if (value === "0%" || value === "100%") return { ok: true, value: null };
    const p = percentage(value);
    if (!p.ok) return p;
    // NaN passes both range checks upstream (comparisons with NaN are false); kept as a quirk.
    if (p.value < 0)
      return fail(
        "percentage-out-of-range",
        `eviction percentage threshold ${signal} must be >= 0%: ${value}`,
      );
    if (p.value > 1)
      return fail(
        "percentage-out-of-range",
        `eviction percentage threshold ${signal} must be <= 100%: ${value}`,
      );
    return { ok: true, value: { kind: "percentage", percentage: p.value, text: value } };
  }
  const q = quantity(value);
  if (!q.ok) return q;
  // Zero is not a way to disable a threshold: it is a startup error.
  if (quantitySign(q.value) <= 0) {
    return fail(
      "non-positive-threshold",
      `eviction threshold ${signal} must be positive: ${formatQuantity(q.value)}`,
    );
  }
  return { ok: true, value: { kind: "quantity", quantity: q.value } };
}

/** A minimum reclaim: a percentage must be > 0% (no upper bound), a quantity >= 0. */
export function parseMinimumReclaimValue(signal: Signal, value: string): StatementResult<ThresholdValue> {
  if (value.endsWith("%")) {
    const p = percentage(value);
    if (!p.ok) return p;
    if (p.value <= 0)
      return fail(
        "non-positive-min-reclaim",
        `eviction percentage minimum reclaim ${signal} must be positive: ${value}`,
      );
    return { ok: true, value: { kind: "percentage", percentage: p.value, text: value } };
  }
  const q = quantity(value);
  if (!q.ok) return q;
  if (quantitySign(q.value) < 0) {
    return fail(
      "negative-min-reclaim",
      `negative eviction minimum reclaim specified for ${signal} (value ${JSON.stringify(value)})`,
    );
  }
  return { ok: true, value: { kind: "quantity", quantity: q.value } };
}

/** A soft grace period: a Go duration, zero allowed, negative rejected. Nanoseconds. */
export function parseGracePeriodValue(value: string): StatementResult<bigint> {
  let ns: bigint;
  try {
    ns = parseGoDuration(value);
  } catch (e) {
    if (!(e instanceof DurationError)) throw e;
    return fail("invalid-duration", e.message);
  }
  if (ns < 0n)
    return fail(
      "negative-grace-period",
      `invalid eviction grace period specified: ${value}, must be a positive value`,
    );
  return { ok: true, value: ns };
}
