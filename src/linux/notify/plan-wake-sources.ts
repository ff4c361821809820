/**
 * Which kernel notifications wake the loop on a node, chosen from the cgroup API, for both kinds of
 * node: the one `evictd run` makes (its node and pods cgroups) and a Kubernetes node's kubelet tree
 * (`watch --stats cgroups`: the root or a node cgroup, and kubepods). Each memory eviction threshold
 * gets a working-set poller on the cgroup it watches (the node's for memory.available, the pods'
 * for allocatableMemory.available), and:
 * - v1: the memcg threshold the kubelet arms (eventfd on memory.usage_in_bytes), re-armed as the
 *   kubelet re-arms it; and two hints on the same cgroup that make the poller look at once: usage
 *   reaching the working-set limit itself (the earliest the working set can cross, whatever
 *   inactive_file the kubelet's threshold was armed with), and the kernel's reclaim reports (the
 *   working set rising while usage stands still at the cgroup's limit);
 * - v2, where upstream has nothing (no byte thresholds exist; kubernetes#106331 switched the v1
 *   notifier off there): a PSI trigger on the node's memory pressure (the node cgroup's
 *   memory.pressure, or /proc/pressure/memory for the root) and inotify on memory.events of the
 *   node (not the root, which has none) and pods cgroups (high/max/oom/oom_kill went up); the
 *   root's working set is read from memory.stat, which is all it has.
 * Every wake is a hint to look now: the loop reads fresh figures and decides from them.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { CgroupDriver, NodeCgroups } from "../cgroups/cgroup-driver.js";
import { MemcgThresholdNotifier } from "./memcg-threshold-notifier.js";
import { MemoryReclaimWatch } from "./memory-reclaim-watch.js";
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

/** The memory cgroups a node's wakes watch, whichever way the node is laid out. */
export interface MemoryWakeTarget {
  readonly api: "v1" | "v2";
  /** The node's memory cgroup directory (memory.available), if it has one. */
  readonly nodeDir: string | undefined;
  /** The pods' memory cgroup directory (allocatableMemory.available), if it has one. */
  readonly podsDir: string | undefined;
  /** The node cgroup is the hierarchy's root: on v2 it has no memory.current, memory.pressure or memory.events. */
  readonly nodeIsRoot: boolean;
  /** How the capability lines name the cgroups, e.g. " on the kubelet's cgroups" (default: nothing). */
  readonly where?: string;
  /** Where procfs is (default /proc): the root's pressure file. */
  readonly procRoot?: string;
}

/** The target of `evictd run`'s own node: its node and pods cgroups from the driver. */
export function ownNodeWakeTarget(driver: CgroupDriver, node: NodeCgroups): MemoryWakeTarget {
  return {
    api: driver.api,
    nodeDir: driver.directories(node.node).memory,
    podsDir: driver.directories(node.pods).memory,
    nodeIsRoot: false,
  };
}

export interface PlanOptions {
  /** Kernel notifications asked for (the node file's `notifications`; default true). */
  readonly notifications?: boolean;
  readonly housekeepingIntervalMs: number;
  readonly thresholds: readonly Threshold[];
  readonly target: MemoryWakeTarget | undefined;
  /** /proc/self/status text (for the capability check); read from the system when absent. */
  readonly procStatus?: string;
}

export function planWakeSources(o: PlanOptions): WakeSourcePlan {
  const polling = `the loop polls every ${o.housekeepingIntervalMs / 1000}s`;
  if (o.notifications === false)
    return {
      thresholds: [],
      others: [],
      capabilities: [`kernel notifications off (notifications: false): ${polling}`],
    };
  const target = o.target;
  if (target === undefined)
    return {
      thresholds: [],
      others: [],
      capabilities: [`no kernel memory notifications without cgroups: ${polling}`],
    };
  const { api } = target;
  const where = target.where ?? "";
  const looking = `the loop also looks every ${o.housekeepingIntervalMs / 1000}s`;

  const thresholds: MemoryThresholdSource[] = [];
  for (const t of o.thresholds) {
    if (!isMemorySignal(t.signal)) continue;
    const onNode = t.signal === "memory.available";
    const dir = onNode ? target.nodeDir : target.podsDir;
    if (dir === undefined) continue;
    const description = `${t.gracePeriodMs === 0 ? "hard" : "soft"} ${onNode ? "" : "allocatable "}memory eviction threshold`;
    thresholds.push({
      threshold: t,
      ...(api === "v1"
        ? {
            notifier: new MemcgThresholdNotifier({ cgroupDir: dir, description }),
            usageAtLimit: new MemcgThresholdNotifier({
              cgroupDir: dir,
              description: `usage at the ${description}'s working-set limit`,
              kind: "usage-at-limit",
            }),
            reclaim: new MemoryReclaimWatch({ cgroupDir: dir }),
          }
        : {}),
      poller: new WorkingSetPoller({
        cgroupDir: dir,
        api,
        description,
        ...(onNode && target.nodeIsRoot && api === "v2" ? { rootV2: true } : {}),
      }),
    });
  }
  const polled = `the working set is read before a 2 GiB/s ramp could cross ${thresholds.length} memory threshold(s) (every 5 ms to 1 s by the distance left)`;

  if (api === "v1") {
    return {
      thresholds,
      others: [],
      capabilities: [
        thresholds.length > 0
          ? `kernel notifications${where}: ${thresholds.length} memcg threshold(s) wake the loop at once, and ${polled}, at once when usage reaches a threshold's working-set limit or the kernel reports reclaim there, for what they miss; ${looking}`
          : `no memory eviction threshold to arm a memcg notification for: ${polling}`,
      ],
    };
  }

  const spec = ownPsiTriggerSpec(o.procStatus);
  const others: WakeSource[] = [];
  const watched: string[] = [];
  const pressureFile = target.nodeIsRoot
    ? path.join(target.procRoot ?? "/proc", "pressure", "memory")
    : target.nodeDir !== undefined
      ? path.join(target.nodeDir, "memory.pressure")
      : undefined;
  if (pressureFile !== undefined) {
    others.push(new PsiTrigger({ ...spec, path: pressureFile }));
    watched.push(
      `a PSI trigger (some ${spec.stallUs / 1000} ms stall in ${spec.windowUs / 1000} ms) on ${pressureFile}`,
    );
  }
  const eventsOf: string[] = [];
  if (!target.nodeIsRoot && target.nodeDir !== undefined) {
    others.push(new MemoryEventsWatcher({ path: path.join(target.nodeDir, "memory.events") }));
    eventsOf.push("the node");
  }
  if (target.podsDir !== undefined) {
    others.push(new MemoryEventsWatcher({ path: path.join(target.podsDir, "memory.events") }));
    eventsOf.push("the pods");
  }
  if (eventsOf.length > 0) watched.push(`memory.events of ${eventsOf.join(" and ")} cgroup`);
  if (thresholds.length > 0) watched.push(polled);
  return {
    thresholds,
    others,
    capabilities: [
      `kernel notifications${where} (cgroup v2, where no memcg byte thresholds exist): ${watched.join("; ")} wake the loop; ${looking}`,
    ],
  };
}
