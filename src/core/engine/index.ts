/** The eviction engine's public surface. */
export { synchronize, byEvictionPriority } from "./synchronize.js";
export { INITIAL_STATE } from "./types.js";
export type * from "./types.js";
export { effectiveGracePeriod, evictionGracePeriodOverride } from "./grace-period.js";
export { withContainerFsThresholds } from "./containerfs-thresholds.js";
export { makeSignalObservations } from "./observations.js";
export { thresholdQuantity } from "./threshold-quantity.js";
