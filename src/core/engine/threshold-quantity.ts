/**
 * GetThresholdQuantity: a threshold's value (or minimum reclaim) resolved against a capacity.
 * Percentages use the kubelet's float32 arithmetic and always yield a BinarySI quantity, even for
 * inode and PID counts (this shows in eviction messages).
 */
import type { ThresholdValue } from "../model.js";
import { percentOf } from "../percentage.js";
import { quantityFromInt, type Quantity } from "../quantity.js";

export function thresholdQuantity(value: ThresholdValue, capacity: bigint): Quantity {
  if (value.kind === "quantity") return value.quantity;
  return quantityFromInt(percentOf(capacity, value.percentage), "BinarySI");
}
