/**
 * Which kernel notifications wake the daemon's loop on this node, chosen from the cgroup API:
 * - v1: one memcg threshold (eventfd on memory.usage_in_bytes) per memory eviction threshold, on
 *   the cgroup that threshold watches, re-armed as the kubelet re-arms them;
 * - v2: no byte thresholds exist (no cgroup.event_control), so a PSI trigger on the node cgroup's
 *   memory.pressure (memory stalls mean reclaim has begun: the node is close to its limit) and
 *   inotify on memory.events of the node and pods cgroups (high/max/oom/oom_kill went up).
 * Upstream's kubelet has nothing on v2 and waits for its 10 s loop; here the loop still re-reads
 * fresh stats on every wake and decides from them, so a wake is only ever a hint to look now.
 */
import { readFileSync } from "node:fs";
import type { CgroupDriver, NodeCgroups } from "../cgroups/cgroup-driver.js";
import { MemcgThresholdNotifier } from "./memcg-threshold-notifier.js";
import { MemoryEventsWatcher } from "./memory-events-watcher.js";
import { PsiTrigger } from "./psi-trigger.js";
import type { WakeSource } from "./wake-source.js";
import { WorkingSetPoller } from "./working-set-poller.js";
import type { Threshold } from "../../core/model.js";
import { isMemorySignal } from "../../core/signals.js";
import type { MemoryThresholdSource } from "./notification-wake-port.js";

export interface WakeSourcePlan {
  readonly thresholds: MemoryThresholdSource[];
  readonly others: WakeSource[];
  /** One line each for the daemon's capability list ("what it can and cannot do here"). */
  readonly capabilities: string[];
}

/** CAP_SYS_RESOURCE (capability number 24) in this process's effective set. */
export function hasSysResourceCapability(statusText: string): boolean {
  const m = /^CapEff:\s*([0-9a-f]+)$/im.exec(statusText);
  if (m?.[1] === undefined) return false;
  return (BigInt(`0x${m[1]}`) & (1n << 24n)) !== 0n;
}

/**
 * The PSI trigger for a node cgroup: 100 ms of "some" stall within 1 s, which the kernel's
 * real-time poller checks every 100 ms. Without CAP_SYS_RESOURCE the kernel only accepts windows
 * in multiples of 2 s, evaluated by its 2 s averaging worker, so the trigger is 200 ms in 2 s.
 */
export function psiTriggerSpecFor(privileged: boolean): { kind: "some"; stallUs: number; windowUs: number } {
  return privileged
    ? { kind: "some", stallUs: 100_000, windowUs: 1_000_000 }
    : { kind: "some", stallUs: 200_000, windowUs: 2_000_000 };
}

/** The trigger spec for this process: /proc/self/status (or `procStatus`) says whether it is privileged. */
export function ownPsiTriggerSpec(procStatus?: string): ReturnType<typeof psiTriggerSpecFor> {
  let status = procStatus;
  if (status === undefined) {
    try {
      status = readFileSync("/proc/self/status", "utf8");
    } catch {
      status = "";
    }
  }
  return psiTriggerSpecFor(hasSysResourceCapability(status));
}

export interface PlanOptions {
  readonly notifications: boolean;
  readonly housekeepingIntervalMs: number;
  readonly thresholds: readonly Threshold[];
  readonly cgroups: { readonly driver: CgroupDriver; readonly node: NodeCgroups } | undefined;
  /** /proc/self/status text (for the capability check); read from the system when absent. */
  readonly procStatus?: string;
}

export function planWakeSources(o: PlanOptions): WakeSourcePlan {
  const polling = `the loop polls every ${o.housekeepingIntervalMs / 1000}s`;
  if (!o.notifications)
    return {
      thresholds: [],
      others: [],
      capabilities: [`kernel notifications off (notifications: false): ${polling}`],
    };
  if (o.cgroups === undefined)
    return {
      thresholds: [],
      others: [],
      capabilities: [`no kernel memory notifications without cgroups: ${polling}`],
    };
  const { driver, node } = o.cgroups;

  // Every memory threshold gets a working-set poller on the cgroup it watches; on v1 also the
  // memcg notification the kubelet arms (v2 has no byte thresholds).
  const api = driver.api;
  const thresholds: MemoryThresholdSource[] = [];
  for (const t of o.thresholds) {
    if (!isMemorySignal(t.signal)) continue;
    const dir = driver.directories(t.signal === "memory.available" ? node.node : node.pods).memory;
    if (dir === undefined) continue;
    const description = `${t.gracePeriodMs === 0 ? "hard" : "soft"} ${t.signal === "memory.available" ? "" : "allocatable "}memory eviction threshold`;
    thresholds.push({
      threshold: t,
      ...(api === "v1" ? { notifier: new MemcgThresholdNotifier({ cgroupDir: dir, description }) } : {}),
      poller: new WorkingSetPoller({ cgroupDir: dir, api, description }),
    });
  }
  const polled = `the working set is read before a 2 GiB/s ramp could cross ${thresholds.length} memory threshold(s) (every 5 ms to 1 s by the distance left)`;

  if (api === "v1") {
    return {
      thresholds,
      others: [],
      capabilities: [
        thresholds.length > 0
          ? `kernel notifications: ${thresholds.length} memcg threshold(s) wake the loop at once, and ${polled} for what they miss`
          : `no memory eviction threshold to arm a memcg notification for: ${polling}`,
      ],
    };
  }

  const nodeFiles = driver.notifierFiles(node.node);
  const podsFiles = driver.notifierFiles(node.pods);
  const others: WakeSource[] = [];
  const lines: string[] = [];
  if (nodeFiles.api === "v2") {
    const spec = ownPsiTriggerSpec(o.procStatus);
    others.push(new PsiTrigger({ ...spec, path: nodeFiles.memoryPressureFile }));
    lines.push(
      `PSI trigger (some ${spec.stallUs / 1000} ms stall in ${spec.windowUs / 1000} ms) on the node cgroup`,
    );
    others.push(new MemoryEventsWatcher({ path: nodeFiles.memoryEventsFile }));
  }
  if (podsFiles.api === "v2") others.push(new MemoryEventsWatcher({ path: podsFiles.memoryEventsFile }));
  lines.push("memory.events of the node and pods cgroups");
  if (thresholds.length > 0) lines.push(polled);
  return {
    thresholds,
    others,
    capabilities: [
      `kernel notifications (cgroup v2, no memcg byte thresholds exist): ${lines.join("; ")} wake the loop; between wakes ${polling}`,
    ],
  };
}
