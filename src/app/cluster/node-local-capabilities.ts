/**
 * What `watch --stats cgroups` lists among its capabilities (/status and the start line), in place
 * of the "no kernel notifications from outside the node" of watch-capabilities.ts: the wake sources
 * armed on the kubelet's cgroups, the loop thread's priority, each source the kernel refused (in
 * the one wording /metrics counts), and the count of kernel OOM kills.
 */
import { notArmedCapability } from "../node-view/wake-capability.js";

export interface NodeLocalCapabilitiesInput {
  /** The wake sources planned on the kubelet's cgroups, as the planner describes them. */
  readonly wakeSources: readonly string[];
  /** What became of raising the priority of the thread the wakes run on. */
  readonly threadPriority: string;
  /** Why the kernel refused each wake source it refused. */
  readonly notArmed: readonly string[];
  /** The kubelet's cgroup API, which decides the file the OOM kills are counted in. */
  readonly cgroupApi: "v1" | "v2";
  readonly oomKillScanMs: number;
}

/** One sentence per capability or limit, in the order /status shows them. */
export function nodeLocalCapabilities(o: NodeLocalCapabilitiesInput): string[] {
  const oomKillFile = o.cgroupApi === "v2" ? "memory.events" : "memory.oom_control";
  return [
    ...o.wakeSources,
    o.threadPriority,
    ...o.notArmed.map((reason) => notArmedCapability(reason)),
    `kernel OOM kills counted per container from the kubelet's cgroups every ${o.oomKillScanMs / 1000} s (${oomKillFile} oom_kill)`,
  ];
}
