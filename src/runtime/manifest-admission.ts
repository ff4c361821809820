/**
 * What the node does with what the manifest directory says (manifest-source.ts): a new pod goes
 * through the kubelet's admission (core/node-admission.ts: the node conditions the eviction loop
 * reports now, then resource fit against allocatable) and is started or rejected; a pod whose
 * manifest went away is stopped and forgotten; a changed one is stopped, forgotten and started
 * anew; the files with problems are logged and handed on (for /status and /metrics).
 */
import type { LoggerPort } from "../app/ports.js";
import { manifestProblem, type ManifestProblem } from "../app/node-view/snapshot.js";
import { rejectedPodStatus } from "../core/admission.js";
import type { NodeCondition } from "../core/model.js";
import { admitPodToNode } from "../core/node-admission.js";
import type { NodeAllocatable } from "../core/resource-fit.js";
import type { ManifestListener } from "./manifest-source.js";
import type { ProcessPodRuntime } from "./pod-runtime.js";
import type { RunnablePod } from "./runnable-pod.js";

/** Problems of one bad manifest file shown in its log line (all of them are in /status). */
const MANIFEST_LOG_PROBLEMS = 3;

/** What of the pod runtime manifests drive. */
export type ManifestPodRuntime = Pick<
  ProcessPodRuntime,
  "start" | "reject" | "kill" | "forget" | "nonTerminatedPods"
>;

export interface ManifestAdmissionOptions {
  readonly runtime: ManifestPodRuntime;
  /** The node's allocatable memory and pod count (the node spec's allocatableMemoryBytes and maxPods). */
  readonly allocatable: NodeAllocatable;
  /** The node conditions the eviction loop reports now. */
  readonly conditions: () => readonly NodeCondition[];
  readonly logger: LoggerPort;
  /** The files with problems (errors or warnings), each time the list changes; empty when none is left. */
  readonly onManifestProblems?: (problems: readonly ManifestProblem[]) => void;
}

/** The manifest source's listener for a node that runs its pods in `options.runtime`. */
export function manifestAdmission(options: ManifestAdmissionOptions): ManifestListener {
  const { runtime, allocatable, conditions, logger: log } = options;

  /** Stops a pod whose manifest went away or changed (its own grace period), then deletes what is kept of it. */
  const stopAndForget = async (pod: RunnablePod, reason: string, message: string): Promise<void> => {
    const kill = await runtime.kill(pod, pod.terminationGracePeriodSeconds, {
      phase: "Failed",
      reason,
      message,
      conditions: [],
    });
    await kill.done;
    await runtime.forget(pod);
  };

  return {
    added: (pod: RunnablePod) => {
      const verdict = admitPodToNode(pod, conditions(), runtime.nonTerminatedPods(), allocatable);
      const action = verdict.admit
        ? runtime.start(pod)
        : runtime.reject(pod, { ...rejectedPodStatus(verdict), conditions: [] });
      if (!verdict.admit)
        log.warn({ pod: pod.key, reason: verdict.reason }, `rejected ${pod.key}: ${verdict.message.trim()}`);
      action.catch((e: unknown) => log.error({ pod: pod.key, err: String(e) }, "cannot start pod"));
    },
    removed: (pod: RunnablePod) => {
      stopAndForget(pod, "Deleted", "The pod manifest was removed").catch((e: unknown) =>
        log.error({ pod: pod.key, err: String(e) }, "cannot stop removed pod"),
      );
    },
    changed: (previous: RunnablePod, next: RunnablePod) => {
      log.info({ pod: next.key }, "manifest changed: restarting the pod");
      stopAndForget(previous, "Replaced", "The pod manifest changed")
        .then(() => runtime.start(next))
        .catch((e: unknown) => log.error({ pod: next.key, err: String(e) }, "cannot restart changed pod"));
    },
    errors: (errs) => {
      const problems = errs.map((e) => manifestProblem(e.file, e.issues));
      options.onManifestProblems?.(problems);
      // Each message is bounded (read-manifest-file.ts); a file with many problems shows the first few.
      for (const e of problems) {
        const lines = [...e.errors, ...e.warnings];
        const more =
          lines.length > MANIFEST_LOG_PROBLEMS
            ? `; … ${lines.length - MANIFEST_LOG_PROBLEMS} more in /status`
            : "";
        log.warn(
          { file: e.file },
          `bad pod manifest: ${lines.slice(0, MANIFEST_LOG_PROBLEMS).join("; ")}${more}`,
        );
      }
    },
  };
}
