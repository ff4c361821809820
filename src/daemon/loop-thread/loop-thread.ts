/**
 * The main thread's handle on `evictd run`'s loop thread (loop-thread-main.ts): starts it, keeps it
 * told about the pods, answers what it asks, takes in its kills, and stops it.
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import type { LoopStepData } from "../../app/loop/loop-step-data.js";
import type { LoggerPort } from "../../app/ports.js";
import type { FilesystemLayout } from "../../core/model.js";
import type { NodeSpec } from "../../core/node/node-spec.js";
import {
  errorFromData,
  type FromLoopThread,
  type KillNotice,
  type LastSummary,
  type LoopThreadInit,
  type PodsUpdate,
  type ToLoopThread,
} from "./protocol.js";
import { answerKillNotice, answerRequest, type LoopThreadPodHandlers } from "./serve-loop-thread.js";

/**
 * The loop thread's V8 limits. Only the loop's own figures live there: a small young generation
 * keeps the thread's memory small. (The overhead bench starts an idle worker with the same limits
 * to measure what the thread costs before it runs anything.)
 */
export const LOOP_THREAD_RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 4 } as const;

/** How long a loop thread asked to stop may take before it is terminated. */
const STOP_TIMEOUT_MS = 10_000;

/**
 * What the main thread does for the loop thread: its pods' part (serve-loop-thread.ts; kills may
 * be taken in from within {@link LoopThread.takeInKills}), its log lines and its steps.
 */
export interface LoopThreadHandlers extends LoopThreadPodHandlers {
  readonly log: LoggerPort;
  /** One synchronize, numbered (its Summary: {@link LoopThread.summary}). */
  readonly onStep: (step: LoopStepData, seq: number) => void;
}

export interface LoopThreadOptions {
  readonly node: NodeSpec;
  readonly layout: FilesystemLayout;
  readonly dryRun: boolean;
  readonly cgroups?: LoopThreadInit["cgroups"];
  readonly pods: PodsUpdate;
  readonly journal?: LoopThreadInit["journal"];
  readonly handlers: LoopThreadHandlers;
}

export class LoopThread {
  readonly capabilities: readonly string[];
  /** Resolves when the loop has stopped as asked; rejects if it failed or the thread died. */
  readonly finished: Promise<void>;
  readonly #worker: Worker;
  readonly #kills: MessagePort;
  readonly #handlers: LoopThreadHandlers;
  #exited = false;
  #nextId = 1;
  readonly #summaries = new Map<number, (summary: LastSummary) => void>();

  private constructor(
    worker: Worker,
    kills: MessagePort,
    handlers: LoopThreadHandlers,
    capabilities: readonly string[],
    finished: Promise<void>,
  ) {
    this.#worker = worker;
    this.#kills = kills;
    this.#handlers = handlers;
    this.capabilities = capabilities;
    this.finished = finished;
    worker.once("exit", () => (this.#exited = true));
  }

  /** Starts the thread; resolves once its loop is about to run (wake sources armed), or rejects with why it could not. */
  static start(options: LoopThreadOptions): Promise<LoopThread> {
    const { handlers } = options;
    const kills = new MessageChannel();
    const init: LoopThreadInit = {
      node: options.node,
      layout: options.layout,
      dryRun: options.dryRun,
      ...(options.cgroups !== undefined ? { cgroups: options.cgroups } : {}),
      pods: options.pods,
      ...(options.journal !== undefined ? { journal: options.journal } : {}),
      kills: kills.port2,
    };
    const worker = new Worker(new URL("./loop-thread-main.js", import.meta.url), {
      workerData: init,
      transferList: [kills.port2],
      resourceLimits: LOOP_THREAD_RESOURCE_LIMITS,
    });
    return new Promise<LoopThread>((resolveStart, rejectStart) => {
      let thread: LoopThread | undefined;
      let settleFinished: { resolve: () => void; reject: (e: Error) => void } | undefined;
      const finished = new Promise<void>((resolve, reject) => (settleFinished = { resolve, reject }));
      // A rejection nobody awaits yet (the loop failing before `finished` is awaited) is not unhandled.
      finished.catch(() => undefined);
      let ended = false;
      const end = (error?: Error): void => {
        if (ended) return;
        ended = true;
        if (thread === undefined) rejectStart(error ?? new Error("the loop thread ended before it started"));
        if (error === undefined) settleFinished?.resolve();
        else settleFinished?.reject(error);
      };
      // Notices not taken in synchronously arrive as messages, in the same order.
      kills.port1.on("message", (notice: KillNotice) => thread?.takeIn(notice));
      worker.on("message", (message: FromLoopThread) => {
        switch (message.type) {
          case "ready":
            thread = new LoopThread(worker, kills.port1, handlers, message.capabilities, finished);
            resolveStart(thread);
            return;
          case "log":
            (handlers.log.at?.(message.at) ?? handlers.log)[message.level](message.fields, message.message);
            return;
          case "step":
            // Kills come before the step that made them (the runtime's view first).
            thread?.takeInKills();
            handlers.onStep(message.step, message.seq);
            return;
          case "summary":
            thread?.settleSummary(message.id, {
              seq: message.seq,
              raw: message.raw,
              ...(message.nodeMemoryViews !== undefined ? { nodeMemoryViews: message.nodeMemoryViews } : {}),
              ...(message.podMemory !== undefined ? { podMemory: message.podMemory } : {}),
            });
            return;
          case "request":
            // A request about a pod (is it cleaned up?) is answered knowing the kills sent before it.
            thread?.takeInKills();
            answerRequest(message.id, message.request, handlers.onRequest, post);
            return;
          case "restate":
            thread?.takeInKills();
            handlers.onRestate(message.uid, message.status);
            return;
          case "failed":
            end(errorFromData(message.error));
            return;
          case "stopped":
            end();
            return;
        }
      });
      const post = (message: ToLoopThread): void => {
        if (!ended) worker.postMessage(message);
      };
      worker.on("error", (error) => end(error));
      worker.on("exit", (code) => {
        kills.port1.close();
        end(code === 0 ? undefined : new Error(`the loop thread exited with code ${code}`));
      });
    });
  }

  /**
   * The Summary API object the loop's last step decided from, with the step's number and the node's
   * memory views read as the thread answered; undefined when the thread does not answer within
   * `timeoutMs` (it is busy with a step, or gone).
   */
  summary(timeoutMs: number): Promise<LastSummary | undefined> {
    if (this.#exited) return Promise.resolve(undefined);
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#summaries.delete(id);
        resolve(undefined);
      }, timeoutMs);
      this.#summaries.set(id, (summary) => {
        clearTimeout(timer);
        resolve(summary);
      });
      this.#post({ type: "summaryWanted", id });
    });
  }

  private settleSummary(id: number, summary: LastSummary): void {
    this.#summaries.get(id)?.(summary);
    this.#summaries.delete(id);
  }

  /** Tells the loop thread what the pods are now. */
  pushPods(pods: PodsUpdate): void {
    this.#post({ type: "pods", ...pods });
  }

  /**
   * Takes in, synchronously, every kill the loop thread has posted so far. The runtime calls this
   * before it handles a container's exit: the loop thread posts a notice just before it signals, so
   * a pod it evicts is known to be evicted before any of its processes' exits is looked at.
   */
  takeInKills(): void {
    for (let m = receiveMessageOnPort(this.#kills); m !== undefined; m = receiveMessageOnPort(this.#kills))
      this.takeIn(m.message as KillNotice);
  }

  /** Hands one kill notice to the runtime and answers the loop thread. */
  private takeIn(notice: KillNotice): void {
    answerKillNotice(notice, this.#handlers.onKill, (message) => this.#post(message));
  }

  /** Asks the loop to stop and waits until it has released what it held (bounded; then the thread is terminated). */
  async stop(): Promise<void> {
    this.#post({ type: "stop" });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">(
      (resolve) => (timer = setTimeout(() => resolve("timeout"), STOP_TIMEOUT_MS)),
    );
    try {
      const outcome = await Promise.race([this.finished.then(() => "stopped" as const), timedOut]);
      if (outcome === "timeout") {
        this.#handlers.log.warn(
          { timeoutMs: STOP_TIMEOUT_MS },
          "the loop thread did not stop in time: terminating it",
        );
        await this.#worker.terminate();
      }
    } finally {
      clearTimeout(timer);
    }
  }

  #post(message: ToLoopThread): void {
    if (!this.#exited) this.#worker.postMessage(message);
  }
}
