/**
 * An OOM-risk moment: memory.available at or below the smaller of the kubelet's default hard
 * threshold (100Mi) and 5% of the node's memory. The kernel's OOM killer is that close; the replay
 * report and the fleet comparison count such steps alike.
 */
export const OOM_RISK_BYTES = 100 * 1024 * 1024;
export const OOM_RISK_FRACTION = 0.05;

/** Whether memory.available `available` of `capacity` bytes is an OOM-risk moment. */
export function isOomRisk(available: number, capacity: number): boolean {
  return available <= Math.min(OOM_RISK_BYTES, capacity * OOM_RISK_FRACTION);
}
