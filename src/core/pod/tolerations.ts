/**
 * Toleration matching (`Toleration.ToleratesTaint`), used by admission for the memory-pressure
 * taint special case.
 */
import type { Toleration } from "../model.js";

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

/**
 * Empty effect matches every effect; empty key matches every key; `Exists` matches any value,
 * `Equal` (or empty) needs the same value. The numeric `Lt`/`Gt` operators sit behind the
 * TaintTolerationComparisonOperators gate (off by default), under which they never match.
 */
export function tolerationToleratesTaint(toleration: Toleration, taint: Taint): boolean {
  const effect = toleration.effect ?? "";
  if (effect !== "" && effect !== taint.effect) return false;
  const key = toleration.key ?? "";
  if (key !== "" && key !== taint.key) return false;
  switch (toleration.operator ?? "") {
    case "":
    case "Equal":
      return (toleration.value ?? "") === (taint.value ?? "");
    case "Exists":
      return true;
    default:
      return false;
  }
}

/** `TolerationsTolerateTaint`: any toleration matching is enough. */
export function toleratesTaint(tolerations: readonly Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => tolerationToleratesTaint(t, taint));
}
