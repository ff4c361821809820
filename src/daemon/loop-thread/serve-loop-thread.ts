/**
 * The main thread's side of the loop thread's pods, as `evictd run` serves it: the process runtime
 * answers what the loop thread asks (is a pod cleaned up, reclaim, the pods' stats descriptions),
 * takes in its kill notices (a kill the loop thread signalled itself stays the runtime's; any other
 * is the pods port's: the runtime, or a dry run's) and its restated statuses; and what goes back to
 * the loop thread for each (protocol.ts). LoopThread serves its worker with these, and the PodsPort
 * contract serves the loop thread's RemotePods with the same, over channels on one thread.
 */
import type { FailedPodStatus, KillResult, PodsPort } from "../../app/ports.js";
import type { ProcessPodRuntime } from "../../runtime/pod-runtime.js";
import { errorData, type KillNotice, type LoopRequest, type ToLoopThread } from "./protocol.js";

/** What the main thread does with the loop thread's messages about pods. */
export interface LoopThreadPodHandlers {
  /** A request (isCleanedUp, GC, stats targets); its value or error goes back. */
  readonly onRequest: (request: LoopRequest) => Promise<unknown>;
  /**
   * A pod the loop evicts. Called synchronously when `notice.signalled` (the loop thread has sent
   * SIGTERM: the runtime takes it from there), possibly from within a take-in of the kills posted
   * so far, before a container's exit is handled.
   */
  readonly onKill: (notice: KillNotice) => KillResult | Promise<KillResult>;
  readonly onRestate: (uid: string, status: FailedPodStatus) => void;
}

/** What of the process runtime serves the loop thread. */
export type LoopThreadRuntime = Pick<ProcessPodRuntime, "knownPods" | "statsTargets" | "killSignalled">;

/**
 * `evictd run`'s answers to the loop thread: pods are looked up in `runtime` (the loop's copy of a
 * pod gives way to the runtime's own record of it), and kills, cleanup, reclaim and restated
 * statuses go to `pods` (the runtime itself, or a dry run's port over it).
 */
export function serveLoopThreadRequests(runtime: LoopThreadRuntime, pods: PodsPort): LoopThreadPodHandlers {
  const podByUid = (uid: string) => runtime.knownPods().find((p) => p.uid === uid);
  return {
    onRequest: async (request) => {
      switch (request.op) {
        case "isCleanedUp": {
          const pod = podByUid(request.uid);
          return pod === undefined ? true : pods.isCleanedUp(pod);
        }
        case "containerGC":
          return pods.containerGC();
        case "imageGC":
          return pods.imageGC();
        case "statsTargets":
          return runtime.statsTargets();
      }
    },
    onKill: (notice) => {
      const pod = podByUid(notice.pod.uid) ?? notice.pod;
      return notice.signalled !== undefined
        ? runtime.killSignalled(pod, notice.gracePeriodSeconds, notice.status, notice.signalled)
        : pods.kill(pod, notice.gracePeriodSeconds, notice.status);
    },
    onRestate: (uid, status) => {
      const pod = podByUid(uid);
      if (pod !== undefined) pods.restate?.(pod, status);
    },
  };
}

/**
 * Hands one kill notice to `onKill` and answers the loop thread: a `reply` with when SIGTERM went
 * out (or the error), then `killDone` with how the kill ended.
 */
export function answerKillNotice(
  notice: KillNotice,
  onKill: LoopThreadPodHandlers["onKill"],
  post: (message: ToLoopThread) => void,
): void {
  const answer = (result: KillResult): void => {
    post({ type: "reply", id: notice.id, value: { terminatedAt: result.terminatedAt } });
    result.done.then(
      (end) => post({ type: "killDone", id: notice.id, ok: end.ok, stuck: end.stuck }),
      () => post({ type: "killDone", id: notice.id, ok: false, stuck: [] }),
    );
  };
  let result: KillResult | Promise<KillResult>;
  try {
    result = onKill(notice);
  } catch (error) {
    post({ type: "reply", id: notice.id, error: errorData(error) });
    return;
  }
  if (result instanceof Promise)
    result.then(answer, (error: unknown) => post({ type: "reply", id: notice.id, error: errorData(error) }));
  else answer(result);
}

/** Answers request `id` of the loop thread with `onRequest`'s value, or its error. */
export function answerRequest(
  id: number,
  request: LoopRequest,
  onRequest: LoopThreadPodHandlers["onRequest"],
  post: (message: ToLoopThread) => void,
): void {
  onRequest(request).then(
    (value) => post({ type: "reply", id, value }),
    (error: unknown) => post({ type: "reply", id, error: errorData(error) }),
  );
}
