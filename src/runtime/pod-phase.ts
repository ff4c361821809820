/** The pod phase from its containers' states, by the kubelet's rules (`getPhase` in pkg/kubelet/kubelet_pods.go). */
import type { PodRestartPolicy } from "./runnable-pod.js";

export type PodPhase = "Pending" | "Running" | "Succeeded" | "Failed";

/** A container's state as the phase rules read it; undefined (no status) means not created yet. */
export type ContainerPhaseState =
  /** Waiting to (re)start; `lastExitCode` is the previous run's exit code, absent if it never ran. */
  | { readonly state: "waiting"; readonly lastExitCode?: number }
  | { readonly state: "running" }
  | { readonly state: "terminated"; readonly exitCode: number };

export interface PhaseInput {
  readonly restartPolicy: PodRestartPolicy;
  /** In spec order; `sidecar` = restartPolicy Always. */
  readonly initContainers: readonly {
    readonly sidecar: boolean;
    readonly status: ContainerPhaseState | undefined;
  }[];
  readonly containers: readonly (ContainerPhaseState | undefined)[];
  /** Every init container finished (or, for sidecars, started): the Initialized condition. */
  readonly podHasInitialized: boolean;
  /**
   * The pod will never run again (evicted, rejected, completed): stopped containers then decide
   * Succeeded or Failed whatever the restart policy says.
   */
  readonly podIsTerminal: boolean;
}

/**
 * Upstream's counting, in its order:
 * - init containers: a regular one that is running, not yet created or waiting without a previous
 *   run is pending; one that exited non-zero (now or in its last run) failed initialisation. A
 *   sidecar is pending until it has run (started) once; its later exits do not count.
 * - regular containers: running, stopped (terminated, or waiting after a previous run), succeeded
 *   (stopped with exit 0), waiting (never ran), unknown (no status).
 * Then: failed initialisation under restartPolicy Never → Failed; anything pending or waiting →
 * Pending; running with nothing unknown → Running; all stopped → Succeeded/Failed when terminal or
 * when the policy will not restart them, Running while it will (Always; OnFailure with a failure).
 */
export function podPhase(input: PhaseInput): PodPhase {
  let pendingRegularInit = 0;
  let pendingSidecars = 0;
  let failedInitialization = 0;
  for (const init of input.initContainers) {
    const s = init.status;
    if (init.sidecar) {
      if (s === undefined || (s.state === "waiting" && s.lastExitCode === undefined)) pendingSidecars++;
      continue;
    }
    if (s === undefined || s.state === "running") pendingRegularInit++;
    else if (s.state === "terminated") {
      if (s.exitCode !== 0) failedInitialization++;
    } else if (s.lastExitCode === undefined) pendingRegularInit++;
    else if (s.lastExitCode !== 0) failedInitialization++;
  }

  let unknown = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const s of input.containers) {
    if (s === undefined) unknown++;
    else if (s.state === "running") running++;
    else if (s.state === "terminated") {
      stopped++;
      if (s.exitCode === 0) succeeded++;
    } else if (s.lastExitCode !== undefined) stopped++;
    else waiting++;
  }

  if (failedInitialization > 0 && input.restartPolicy === "Never") return "Failed";
  if (pendingRegularInit > 0 || (pendingSidecars > 0 && !input.podHasInitialized)) return "Pending";
  if (waiting > 0) return "Pending";
  if (running > 0 && unknown === 0) return "Running";
  if (running === 0 && stopped > 0 && unknown === 0) {
    if (input.podIsTerminal) return stopped === succeeded ? "Succeeded" : "Failed";
    if (input.restartPolicy === "Always") return "Running";
    if (stopped === succeeded) return "Succeeded";
    if (input.restartPolicy === "Never") return "Failed";
    return "Running";
  }
  return "Pending";
}
