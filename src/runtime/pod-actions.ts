/**
 * What to do next for a pod, as a pure function of its containers' states (the kubelet's
 * `computePodActions`): which containers to start, which to restart after their back-off, whether
 * initialisation is done, and whether the pod has run to its end.
 */
import type { ContainerKind } from "./pod-status-file.js";
import type { PodRestartPolicy } from "./runnable-pod.js";

/** A container as the planner sees it (see `ContainerState` in pod-record.ts). */
export interface PlannedContainer {
  readonly name: string;
  readonly kind: ContainerKind;
  readonly state: "unstarted" | "running" | "waiting" | "terminated";
  readonly exitCode: number | undefined;
  /** A restart timer is already running for it. */
  readonly timerPending: boolean;
}

export interface PodActions {
  /** Start now (first run). */
  readonly start: readonly string[];
  /** Restart after the back-off (a timer is to be set). */
  readonly backOff: readonly string[];
  /** Every init container has completed (sidecars: started). */
  readonly initialized: boolean;
  /** Nothing will run again: every regular container has exited for good, or initialisation failed under Never. */
  readonly complete: boolean;
}

/** restartPolicy: sidecars always; init containers on failure unless Never; regular ones per policy. */
export function shouldRestart(policy: PodRestartPolicy, c: PlannedContainer): boolean {
  if (c.kind === "sidecar") return true;
  if (c.kind === "init") return policy !== "Never" && c.exitCode !== 0;
  return policy === "Always" || (policy === "OnFailure" && c.exitCode !== 0);
}

/** Start it, back it off, or leave it: the same rule for sidecars and regular containers. */
function step(policy: PodRestartPolicy, c: PlannedContainer, start: string[], backOff: string[]): void {
  if (c.state === "unstarted") start.push(c.name);
  else if (c.state === "terminated" && shouldRestart(policy, c)) backOff.push(c.name);
  else if (c.state === "waiting" && !c.timerPending) backOff.push(c.name);
}

/**
 * Init containers go one at a time, in order: the next starts only when the previous one exited 0
 * (a failed one is retried unless the policy is Never, which fails the pod). Sidecars (init
 * containers with restartPolicy Always) are started in their turn and kept running. Then every
 * regular container is started, and restarted per policy.
 */
export function computePodActions(
  policy: PodRestartPolicy,
  containers: readonly PlannedContainer[],
  initialized: boolean,
): PodActions {
  const start: string[] = [];
  const backOff: string[] = [];
  if (!initialized) {
    for (const c of containers) {
      if (c.kind === "regular") continue;
      if (c.kind === "sidecar") {
        step(policy, c, start, backOff);
        continue;
      }
      if (c.state === "terminated" && c.exitCode === 0) continue;
      if (c.state === "terminated" && policy === "Never")
        return { start, backOff, initialized: false, complete: true };
      step(policy, c, start, backOff);
      return { start, backOff, initialized: false, complete: false };
    }
  }
  for (const c of containers) if (c.kind !== "init") step(policy, c, start, backOff);
  const complete = containers
    .filter((c) => c.kind === "regular")
    .every((c) => c.state === "terminated" && !backOff.includes(c.name));
  return { start, backOff, initialized: true, complete };
}
