/**
 * The end of a pod on the node, after its processes: whether it is cleaned up as the kubelet means
 * it (no process left, no task charged to its pids cgroup, a killed pod's resources released), its
 * removal (cgroups and volumes released, logs and status kept), and its deletion, which stops what
 * of a finished pod still runs and deletes everything kept of it.
 */
import { rm } from "node:fs/promises";
import type { LoggerPort } from "../app/ports.js";
import { AdapterError } from "../errors.js";
import type { CgroupDriver } from "../linux/cgroups/cgroup-driver.js";
import type { PodEnds } from "./pod-ends.js";
import { hasFinished, type PodKiller } from "./pod-killer.js";
import type { PodProcesses } from "./pod-processes.js";
import { computePhase, type PodRecord } from "./pod-record.js";
import type { PodResources } from "./pod-resources.js";
import type { PodStatusWriter } from "./pod-status-writer.js";
import type { RunnablePod } from "./runnable-pod.js";

export interface PodRemovalOptions {
  /** The cgroup driver with the node already created, or undefined to run without cgroups. */
  readonly cgroups: CgroupDriver | undefined;
  /** The runtime's pods by UID: a deleted pod leaves it. */
  readonly pods: Map<string, PodRecord>;
  readonly processes: PodProcesses;
  readonly resources: PodResources;
  readonly killer: PodKiller;
  readonly ends: PodEnds;
  readonly status: PodStatusWriter;
  readonly logger: LoggerPort;
  /** Called when a pod is deleted (what the stats collector and the loop are told changes). */
  readonly onPodsChanged: () => void;
}

/** Cleans up, removes and deletes pods; see the module comment and `ProcessPodRuntime`'s methods of the same names. */
export class PodRemoval {
  readonly #cgroups: CgroupDriver | undefined;
  readonly #pods: Map<string, PodRecord>;
  readonly #processes: PodProcesses;
  readonly #resources: PodResources;
  readonly #killer: PodKiller;
  readonly #ends: PodEnds;
  readonly #status: PodStatusWriter;
  readonly #logger: LoggerPort;
  readonly #onPodsChanged: () => void;

  constructor(options: PodRemovalOptions) {
    this.#cgroups = options.cgroups;
    this.#pods = options.pods;
    this.#processes = options.processes;
    this.#resources = options.resources;
    this.#killer = options.killer;
    this.#ends = options.ends;
    this.#status = options.status;
    this.#logger = options.logger;
    this.#onPodsChanged = options.onPodsChanged;
  }

  /** Whether the pod is gone; a killed pod is removed on the way. Unknown pods are cleaned up. */
  async isCleanedUp(pod: RunnablePod): Promise<boolean> {
    const record = this.#pods.get(pod.uid);
    if (record === undefined) return true;
    if ((await this.#processes.ofPod(record)).length > 0) return false;
    const driver = this.#cgroups;
    if (record.cgroup !== undefined && driver?.hasPids === true) {
      try {
        if ((await driver.pids(record.cgroup)).current > 0) return false;
      } catch {
        // The cgroup is already gone: nothing is charged to it.
      }
    }
    // A kill in progress finishes (status written) before its resources go.
    if (record.kill !== undefined) await record.kill.done;
    if (record.statusFixed && !record.removed) await this.remove(pod);
    return true;
  }

  /** Releases the pod's cgroups and volumes; fails with `pod-busy` while processes remain. */
  async remove(pod: RunnablePod): Promise<void> {
    const record = this.#pods.get(pod.uid);
    if (record === undefined || record.removed) return;
    const left = await this.#processes.ofPod(record);
    if (left.length > 0) {
      throw new AdapterError(
        "pod-busy",
        `cannot remove pod ${pod.key}: processes ${left.join(", ")} still run`,
        {
          hint: "kill the pod and wait until isCleanedUp",
        },
      );
    }
    record.abort.abort();
    if (!record.final) {
      record.final = true;
      if (!record.statusFixed) record.phase = computePhase(record);
    }
    await this.#resources.release(record);
    record.removed = true;
    this.#logger.info({ pod: pod.key, uid: pod.uid }, "pod removed: cgroups and volumes released");
    await this.#status.persistNow(record);
  }

  /**
   * Removes the pod and deletes everything kept of it. What of a finished pod still runs (a kill
   * leaves a finished pod alone) is stopped first, within the pod's grace period.
   */
  async forget(pod: RunnablePod): Promise<void> {
    const record = this.#pods.get(pod.uid);
    if (record === undefined) return;
    if (hasFinished(record)) await this.#killer.stopLeftovers(record, "before the pod was deleted");
    await this.remove(pod);
    await record.writes;
    this.#pods.delete(pod.uid);
    this.#ends.forgotten(pod);
    this.#onPodsChanged();
    await rm(record.paths.dir, { recursive: true, force: true });
  }
}
