/**
 * What wakes `watch --stats cgroups` on a Kubernetes node: the kernel, on the kubelet's own cgroups.
 * - v1: the memcg thresholds the kubelet itself arms (eventfd on memory.usage_in_bytes of the root
 *   cgroup for memory.available, of kubepods for allocatableMemory.available), plus a working-set
 *   poller on each for what a usage threshold misses (inactive_file shrinking after arming).
 * - v2, where upstream has no notification at all (kubernetes#106331 switched the v1 notifier off
 *   there): a PSI trigger on memory pressure (the node's: /proc/pressure/memory for the root,
 *   or the node cgroup's memory.pressure), memory.events of kubepods (high/max/oom/oom_kill went
 *   up), and the working-set pollers (the root's read from memory.stat, which is all it has).
 * Every wake is a hint to look now: the loop reads fresh figures and decides from them.
 */
import path from "node:path";
import type { Threshold } from "../../core/model.js";
import { isMemorySignal } from "../../core/signals.js";
import { MemcgThresholdNotifier } from "../notify/memcg-threshold-notifier.js";
import { MemoryEventsWatcher } from "../notify/memory-events-watcher.js";
import type { MemoryThresholdSource } from "../notify/notification-wake-port.js";
import { ownPsiTriggerSpec, type WakeSourcePlan } from "../notify/plan-wake-sources.js";
import { PsiTrigger } from "../notify/psi-trigger.js";
import type { WakeSource } from "../notify/wake-source.js";
import { WorkingSetPoller } from "../notify/working-set-poller.js";
import type { KubeletCgroupTree } from "./kubelet-cgroup-tree.js";

export interface KubeletWakeOptions {
  readonly tree: KubeletCgroupTree;
  readonly thresholds: readonly Threshold[];
  readonly housekeepingIntervalMs: number;
  /** /proc/self/status text (for the capability check); read from the system when absent. */
  readonly procStatus?: string;
  /** Where procfs is (default /proc): the system-wide pressure file. */
  readonly procRoot?: string;
}

export function planKubeletWakeSources(o: KubeletWakeOptions): WakeSourcePlan {
  const { tree } = o;
  const polling = `the loop also looks every ${o.housekeepingIntervalMs / 1000}s`;
  const thresholds: MemoryThresholdSource[] = [];
  for (const t of o.thresholds) {
    if (!isMemorySignal(t.signal)) continue;
    const onNode = t.signal === "memory.available";
    const dir = onNode ? tree.nodeDir : tree.kubepodsDir;
    const description = `${t.gracePeriodMs === 0 ? "hard" : "soft"} ${onNode ? "" : "allocatable "}memory eviction threshold`;
    thresholds.push({
      threshold: t,
      ...(tree.api === "v1" ? { notifier: new MemcgThresholdNotifier({ cgroupDir: dir, description }) } : {}),
      poller: new WorkingSetPoller({
        cgroupDir: dir,
        api: tree.api,
        description,
        ...(onNode && tree.nodeIsRoot && tree.api === "v2" ? { rootV2: true } : {}),
      }),
    });
  }
  const polled = `the working set is read before a 2 GiB/s ramp could cross ${thresholds.length} memory threshold(s) (every 5 ms to 1 s by the distance left)`;
  if (tree.api === "v1") {
    return {
      thresholds,
      others: [],
      capabilities: [
        thresholds.length > 0
          ? `kernel notifications on the kubelet's cgroups: ${thresholds.length} memcg threshold(s) wake the loop at once, and ${polled}; ${polling}`
          : `no memory eviction threshold to arm a memcg notification for: ${polling}`,
      ],
    };
  }
  const spec = ownPsiTriggerSpec(o.procStatus);
  const pressureFile = tree.nodeIsRoot
    ? path.join(o.procRoot ?? "/proc", "pressure", "memory")
    : path.join(tree.nodeDir, "memory.pressure");
  const others: WakeSource[] = [
    new PsiTrigger({ ...spec, path: pressureFile }),
    new MemoryEventsWatcher({ path: path.join(tree.kubepodsDir, "memory.events") }),
  ];
  return {
    thresholds,
    others,
    capabilities: [
      `kernel notifications on the kubelet's cgroups (v2, where the kubelet has none): a PSI trigger (some ${spec.stallUs / 1000} ms stall in ${spec.windowUs / 1000} ms) on ${pressureFile}; memory.events of kubepods${thresholds.length > 0 ? `; ${polled}` : ""}; ${polling}`,
    ],
  };
}
