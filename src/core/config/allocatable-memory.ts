/**
 * The memory a node offers pods under a configuration, as the kubelet reports it in
 * `status.allocatable`: capacity less `kubeReserved.memory` and `systemReserved.memory`, less the
 * hard `memory.available` threshold (a percentage taken of capacity). A stricter hard threshold is
 * paid for in schedulable memory on every node; the fleet comparison weighs configurations by it.
 */
import type { Issue } from "../issues.js";
import type { EvictionConfig } from "../model.js";
import { parseQuantity, QuantityError, quantityValue } from "../quantity.js";
import { isRawObject, type RawObject } from "../raw/raw-object.js";
import { describeValue } from "../raw/describe-value.js";
import { thresholdQuantity } from "../engine/threshold-quantity.js";
import { OPENSHIFT_KUBELET_CONFIG_KIND } from "./kubelet-config-fields.js";

/** `kubeReserved.memory` + `systemReserved.memory` of a KubeletConfiguration, in bytes, or the problems. */
export function reservedMemory(
  document: unknown,
  path = "config",
): { readonly ok: true; readonly bytes: bigint } | { readonly ok: false; readonly issues: Issue[] } {
  let root: RawObject = isRawObject(document) ? document : {};
  if (root["kind"] === OPENSHIFT_KUBELET_CONFIG_KIND) {
    const spec = root["spec"];
    root = isRawObject(spec) && isRawObject(spec["kubeletConfig"]) ? spec["kubeletConfig"] : {};
  }
  const issues: Issue[] = [];
  let bytes = 0n;
  for (const field of ["kubeReserved", "systemReserved"] as const) {
    const map = root[field];
    if (!isRawObject(map) || map["memory"] === undefined) continue;
    const raw = map["memory"];
    try {
      if (typeof raw !== "string" && typeof raw !== "number")
        throw new QuantityError("expected a quantity such as 1Gi", describeValue(raw));
      const value = quantityValue(parseQuantity(String(raw)));
      if (value < 0n) throw new QuantityError("must not be negative", describeValue(raw));
      bytes += value;
    } catch (e) {
      if (!(e instanceof QuantityError)) throw e;
      issues.push({
        severity: "error",
        path: `${path}.${field}.memory`,
        code: "invalid-quantity",
        message: `${describeValue(raw)}: ${e.message}`,
      });
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, bytes };
}

/** Allocatable memory of a node of `capacity` bytes: never below 0. */
export function allocatableMemory(capacity: bigint, reserved: bigint, config: EvictionConfig): bigint {
  const hard = config.thresholds.find((t) => t.signal === "memory.available" && t.origin === "hard");
  const hardBytes = hard?.value === undefined ? 0n : quantityValue(thresholdQuantity(hard.value, capacity));
  const left = capacity - reserved - hardBytes;
  return left < 0n ? 0n : left;
}
