/**
 * `watch --stats cgroups`, opened: the kubelet's pod cgroups on this node (driver and cgroupRoot
 * from its configz unless given), read through a memory reader, the kernel's notifications on them
 * armed at the thresholds the loop decides on (`settings`, from the same configz or the --config
 * file), and the counter of kernel OOM kills, looked at on a timer once the watch serves; the
 * thread the wakes run on is raised as `run`'s loop thread is. The adapters are built here;
 * runWatch drives them through the app's ports.
 */
import type { ClusterEvictionSettings } from "../../app/cluster/eviction-settings.js";
import { nodeLocalCapabilities } from "../../app/cluster/node-local-capabilities.js";
import type { NodeMemoryPort } from "../../app/cluster/node-memory-port.js";
import {
  OOM_KILL_SCAN_MS,
  OomKillWatch,
  type OomKillWatchOptions,
} from "../../app/cluster/oom-kill-watch.js";
import type { OomKillSeen } from "../../app/cluster/oom-kill-report.js";
import type { WakePort } from "../../app/ports.js";
import { KubeletOomKillCounter } from "../../linux/kubelet-cgroups/kubelet-oom-kills.js";
import { NotificationWakePort } from "../../linux/notify/notification-wake-port.js";
import { planWakeSources } from "../../linux/notify/plan-wake-sources.js";
import { systemClock } from "../../linux/system-clock.js";
import { EVICTION_LOOP_NICE, setCurrentThreadNice } from "../../linux/thread-priority.js";
import type { NodeLocalCliOptions } from "./node-local-options.js";
import { openKubeletCgroups } from "./open-kubelet-cgroups.js";

/**
 * Memory read from the kubelet's own cgroups at every wake, the kernel's notifications on them as
 * wakes; disk, inode and PID figures still come from the Summary API, every interval, in the
 * background.
 */
export interface NodeLocalWatch {
  readonly memory: NodeMemoryPort;
  readonly wake: WakePort;
  readonly capabilities: readonly string[];
  /** Kernel OOM kills in the kubelet's cgroups since the last call (the first call learns the counts). */
  readonly oomKills?: { scan(): OomKillSeen[] };
  /** The cgroup API of the node, as its cgroup tree was found (a recorded trace's environment). */
  readonly cgroupVersion?: 1 | 2;
  /** Stops the wake sources and closes the files (the caller's, after runWatch). */
  close(): Promise<void>;
}

/** Opens the cgroups and arms the wakes; `onError` hears of a wake source that fails later. */
export function openNodeLocalWatch(
  opts: NodeLocalCliOptions,
  configz: unknown,
  settings: ClusterEvictionSettings,
  intervalMs: number,
  onError: (source: string, error: unknown) => void,
): NodeLocalWatch {
  const { tree, memory } = openKubeletCgroups(opts, configz);
  let plan;
  try {
    plan = planWakeSources({
      target: {
        api: tree.api,
        nodeDir: tree.nodeDir,
        podsDir: tree.kubepodsDir,
        nodeIsRoot: tree.nodeIsRoot,
        where: " on the kubelet's cgroups",
      },
      thresholds: settings.config.thresholds,
      housekeepingIntervalMs: intervalMs,
    });
  } catch (error) {
    memory.close();
    throw error;
  }
  const wake = new NotificationWakePort({
    sources: plan.thresholds,
    others: plan.others,
    now: () => systemClock.now(),
    onError,
  });
  // The wake's way to the Eviction API call runs on this thread: it must not wait for the CPU behind
  // the pod that is filling the node (the loop thread of `evictd run` is raised the same way).
  const priority = setCurrentThreadNice(
    EVICTION_LOOP_NICE,
    "the eviction loop's thread (watch's event loop)",
  );
  return {
    memory,
    wake,
    capabilities: nodeLocalCapabilities({
      wakeSources: plan.capabilities,
      threadPriority: priority.note,
      notArmed: wake.refused.map((r) => r.reason),
      cgroupApi: tree.api,
      oomKillScanMs: OOM_KILL_SCAN_MS,
    }),
    oomKills: new KubeletOomKillCounter(tree),
    cgroupVersion: tree.api === "v2" ? 2 : 1,
    close: async () => {
      await wake.stop();
      memory.close();
    },
  };
}

/**
 * Looks for kernel OOM kills every OOM_KILL_SCAN_MS, the first look at once (it learns the counts
 * so far); returns the stop. The timer keeps no process alive: the loop does.
 */
export function startOomKillWatch(options: OomKillWatchOptions): () => void {
  const oomKills = new OomKillWatch(options);
  oomKills.begin();
  const timer = setInterval(() => oomKills.look(), OOM_KILL_SCAN_MS);
  timer.unref();
  return () => clearInterval(timer);
}
