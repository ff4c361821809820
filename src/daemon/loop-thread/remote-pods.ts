/**
 * The loop thread's side of the pods: the {@link PodsPort} the eviction loop drives, over the pods
 * the main thread's runtime runs. A kill signals the pod's cgroup subtree from this thread, at
 * once, and then is the runtime's (grace period, SIGKILL, status); everything else is asked of the
 * main thread, which may be busy (HTTP, logs) without delaying a SIGTERM.
 */
import type { MessagePort } from "node:worker_threads";
import type { FailedPodStatus, GcReport, KillResult, LoggerPort, PodsPort } from "../../app/ports.js";
import type { FinalStatusJournal } from "../../runtime/final-status-journal.js";
import type { Pod } from "../../core/model.js";
import type { ActivePodInfo } from "../../linux/node-stats/active-pod-info.js";
import { podPidsNow, type PodSignalTarget } from "../../runtime/pod-processes.js";
import { signalQuietly } from "../../runtime/proc-processes.js";
import {
  errorFromData,
  type FromLoopThread,
  type KillNotice,
  type LoopRequest,
  type PodsUpdate,
  type ToLoopThread,
} from "./protocol.js";

type KillEnd = Awaited<KillResult["done"]>;

/** Requests to the main thread and their answers, matched by id. */
export class MainThreadChannel {
  readonly #out: MessagePort;
  readonly #kills: MessagePort;
  #nextId = 1;
  readonly #replies = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly #killsDone = new Map<number, (end: KillEnd) => void>();

  constructor(out: MessagePort, kills: MessagePort) {
    this.#out = out;
    this.#kills = kills;
  }

  post(message: FromLoopThread): void {
    this.#out.postMessage(message);
  }

  request<T>(request: LoopRequest): Promise<T> {
    const id = this.#nextId++;
    const answer = new Promise<T>((resolve, reject) =>
      this.#replies.set(id, { resolve: resolve as (v: unknown) => void, reject }),
    );
    this.post({ type: "request", id, request });
    return answer;
  }

  /** Posts a kill notice; `answer` is the main thread's reply to it, `done` its end. */
  notice(notice: Omit<KillNotice, "id">): {
    answer: Promise<{ terminatedAt: number }>;
    done: Promise<KillEnd>;
  } {
    const id = this.#nextId++;
    const answer = new Promise<{ terminatedAt: number }>((resolve, reject) =>
      this.#replies.set(id, { resolve: resolve as (v: unknown) => void, reject }),
    );
    const done = new Promise<KillEnd>((resolve) => this.#killsDone.set(id, resolve));
    const message: KillNotice = { id, ...notice };
    this.#kills.postMessage(message);
    return { answer, done };
  }

  /** Handles a reply or a kill's end from the main thread; false for other messages. */
  settle(message: ToLoopThread): boolean {
    if (message.type === "reply") {
      const waiting = this.#replies.get(message.id);
      this.#replies.delete(message.id);
      if (message.error !== undefined) waiting?.reject(errorFromData(message.error));
      else waiting?.resolve(message.value);
      return true;
    }
    if (message.type === "killDone") {
      this.#killsDone.get(message.id)?.({ ok: message.ok, stuck: message.stuck });
      this.#killsDone.delete(message.id);
      return true;
    }
    return false;
  }
}

/** The pods as the main thread last described them, plus the ones this thread is evicting. */
export class RemotePods implements PodsPort {
  readonly #main: MainThreadChannel;
  readonly #dryRun: boolean;
  readonly #journal: FinalStatusJournal | undefined;
  readonly #log: LoggerPort | undefined;
  #active: readonly Pod[] = [];
  #signal = new Map<string, PodSignalTarget>();
  /** Each pod's stats description, kept as the same object while it does not change (see update). */
  #targets = new Map<string, { readonly text: string; readonly target: ActivePodInfo }>();
  #targetList: readonly ActivePodInfo[] | undefined;
  /** Pods killed from here that the main thread still lists as active (it has not heard yet). */
  readonly #evicting = new Set<string>();

  constructor(
    main: MainThreadChannel,
    options: {
      readonly dryRun: boolean;
      /** Where an eviction is recorded before its SIGTERM (final-status-journal.ts). */
      readonly journal?: FinalStatusJournal;
      readonly log?: LoggerPort;
    },
  ) {
    this.#main = main;
    this.#dryRun = options.dryRun;
    this.#journal = options.journal;
    this.#log = options.log;
  }

  /**
   * Takes in the main thread's description of the pods; returns the UIDs not seen before. A pod's
   * stats description that did not change stays the same object: the collector keeps per-cgroup
   * figures and open files keyed by it, which a structured clone would otherwise throw away on every
   * update.
   */
  update(pods: PodsUpdate): string[] {
    const known = new Set(this.#active.map((p) => p.uid));
    this.#active = pods.active;
    this.#signal = new Map(pods.signal.map((t) => [t.uid, t]));
    if (pods.targets === undefined) {
      this.#targetList = undefined;
      this.#targets.clear();
    } else {
      const next = new Map<string, { readonly text: string; readonly target: ActivePodInfo }>();
      this.#targetList = pods.targets.map((target) => {
        const text = JSON.stringify(target);
        const before = this.#targets.get(target.uid);
        const kept = before !== undefined && before.text === text ? before : { text, target };
        next.set(target.uid, kept);
        return kept.target;
      });
      this.#targets = next;
    }
    const active = new Set(pods.active.map((p) => p.uid));
    for (const uid of this.#evicting) if (!active.has(uid)) this.#evicting.delete(uid);
    return pods.active.filter((p) => !known.has(p.uid)).map((p) => p.uid);
  }

  /** The stats collector's pod descriptions: as last sent, or asked for now (no cgroups). */
  async statsTargets(): Promise<readonly ActivePodInfo[]> {
    const listed = this.#targetList;
    const targets = listed ?? (await this.#main.request<ActivePodInfo[]>({ op: "statsTargets" }));
    return this.#evicting.size === 0 ? targets : targets.filter((t) => !this.#evicting.has(t.uid));
  }

  activePods(): readonly Pod[] {
    return this.#evicting.size === 0 ? this.#active : this.#active.filter((p) => !this.#evicting.has(p.uid));
  }

  /**
   * In cgroups: the notice first (so the main thread can take it in before it handles any exit of
   * these processes), then SIGTERM to every process of the pod, from here. Otherwise (no cgroups,
   * or a dry run) the main thread's runtime does it and says when.
   */
  async kill(pod: Pod, gracePeriodSeconds: number, status: FailedPodStatus): Promise<KillResult> {
    const target = this.#dryRun ? undefined : this.#signal.get(pod.uid);
    if (target !== undefined) {
      // On record first: a daemon killed after the signal never starts the pod again.
      const failed = this.#journal?.recordFinal(
        pod.uid,
        pod.key,
        { ...status, statusFixed: true },
        Date.now(),
      );
      const pids = podPidsNow(target);
      const terminatedAt = Date.now();
      const { done } = this.#main.notice({
        pod,
        gracePeriodSeconds,
        status,
        signalled: { pids, terminatedAt },
      });
      for (const pid of pids) signalQuietly(pid, "SIGTERM");
      this.#evicting.add(pod.uid);
      if (failed !== undefined)
        this.#log?.error(
          { pod: pod.key, err: String(failed) },
          "cannot record the eviction in the final-status journal",
        );
      return { terminatedAt, done };
    }
    const { answer, done } = this.#main.notice({ pod, gracePeriodSeconds, status });
    const { terminatedAt } = await answer;
    if (!this.#dryRun) this.#evicting.add(pod.uid);
    return { terminatedAt, done };
  }

  restate(pod: Pod, status: FailedPodStatus): void {
    this.#main.post({ type: "restate", uid: pod.uid, status });
  }

  isCleanedUp(pod: Pod): Promise<boolean> {
    return this.#main.request<boolean>({ op: "isCleanedUp", uid: pod.uid });
  }

  containerGC(): Promise<GcReport> {
    return this.#main.request<GcReport>({ op: "containerGC" });
  }

  imageGC(): Promise<GcReport> {
    return this.#main.request<GcReport>({ op: "imageGC" });
  }
}
