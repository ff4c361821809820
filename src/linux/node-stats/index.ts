/** The Linux stats source: a Summary API object built from cgroups, statfs and /proc. */
export type { ActiveContainerInfo, ActivePodInfo, ActiveVolumeInfo } from "./active-pod-info.js";
export {
  LinuxSummaryCollector,
  type CollectorNodeSpec,
  type LinuxSummaryCollectorOptions,
} from "./summary-collector.js";
export type { CgroupStatsReader } from "./collector-cgroups.js";
export { stringifySummaryJson, type RawSummaryJson } from "./summary-json.js";
export { NanoClock } from "./nano-clock.js";
export { collectorStatsPort, type CollectorStatsPortOptions } from "./collector-stats-port.js";
