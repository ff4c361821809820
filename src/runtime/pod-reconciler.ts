/**
 * A pod's containers brought, after every change, to what the planner (pod-actions.ts) asks for:
 * init containers one at a time and in order, sidecars started in their turn and kept running,
 * then the regular containers, each restarted per restartPolicy after its back-off. The planner
 * decides, this applies it through the container supervisor; a pod that has run to its end is
 * completed here (nothing restarts, the phase becomes Succeeded or Failed, what still runs is
 * stopped within the pod's grace period). Every change ends with the phase recomputed and written.
 */
import type { LoggerPort } from "../app/ports.js";
import type { ContainerSupervisor } from "./container-supervisor.js";
import { computePodActions } from "./pod-actions.js";
import { finalStatus, type PodEnds } from "./pod-ends.js";
import type { PodKiller } from "./pod-killer.js";
import { computePhase, type PodRecord } from "./pod-record.js";
import type { PodStatusWriter } from "./pod-status-writer.js";

export interface PodReconcilerOptions {
  /** Aborted when the runtime closes: nothing is planned afterwards. */
  readonly closing: AbortSignal;
  readonly supervisor: ContainerSupervisor;
  readonly status: PodStatusWriter;
  readonly ends: PodEnds;
  readonly killer: PodKiller;
  readonly logger: LoggerPort;
}

/** Applies the planned actions to pods; see the module comment. */
export class PodReconciler {
  readonly #closing: AbortSignal;
  readonly #supervisor: ContainerSupervisor;
  readonly #status: PodStatusWriter;
  readonly #ends: PodEnds;
  readonly #killer: PodKiller;
  readonly #logger: LoggerPort;

  constructor(options: PodReconcilerOptions) {
    this.#closing = options.closing;
    this.#supervisor = options.supervisor;
    this.#status = options.status;
    this.#ends = options.ends;
    this.#killer = options.killer;
    this.#logger = options.logger;
  }

  /** Applies the planned actions after any change, then refreshes the phase and persists. */
  reconcile(record: PodRecord): void {
    if (this.#closing.aborted || record.terminating || record.removed) return;
    if (!record.final) {
      const actions = computePodActions(
        record.policy,
        record.containers.map((c) => ({
          name: c.spec.name,
          kind: c.kind,
          state: c.state,
          exitCode: c.exitCode,
          timerPending: c.timerPending,
        })),
        record.initialized,
      );
      if (actions.complete) return this.#complete(record);
      record.initialized = actions.initialized;
      for (const c of record.containers) {
        if (actions.backOff.includes(c.spec.name)) this.#supervisor.scheduleRestart(record, c);
        else if (actions.start.includes(c.spec.name)) this.#supervisor.launch(record, c);
      }
    }
    this.refresh(record);
  }

  /** Recomputes the phase (unless a caller fixed it) and persists. */
  refresh(record: PodRecord): void {
    if (!record.statusFixed) record.phase = computePhase(record);
    this.#status.persist(record);
  }

  /** The pod ran to its end: nothing restarts, sidecars are stopped, the phase becomes Succeeded or Failed. */
  #complete(record: PodRecord): void {
    record.final = true;
    record.abort.abort();
    this.refresh(record);
    this.#ends.record(record, finalStatus(record));
    this.#logger.info({ pod: record.pod.key, uid: record.pod.uid, phase: record.phase }, "pod completed");
    if (!record.containers.some((c) => c.state === "running")) return;
    // Sidecars (and anything else still running) are stopped within the pod's grace period.
    void (async () => {
      await this.#killer.stopLeftovers(record, "after the pod completed");
      this.refresh(record);
    })();
  }
}
