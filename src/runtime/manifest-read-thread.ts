/**
 * Manifest files read off the main thread: a worker (manifest-read-thread-main.ts) started when a
 * file needs reading and ended once it has been idle for a moment, so an idle daemon keeps no
 * second isolate. Each file is bounded in CPU time, wall time and heap (a stack overflow is caught
 * in the worker, an issue of that file); a file past a bound gets an issue saying so, the worker is
 * ended, and the files after it go to a new one. Nothing a manifest holds can block the main thread
 * (HTTP, the pods) or end the daemon.
 */
import { readFileSync } from "node:fs";
import { Worker, type ResourceLimits } from "node:worker_threads";
import type { LoggerPort } from "../app/ports.js";
import type { Issue } from "../core/issues.js";
import { parseProcStat } from "../linux/procfs.js";
import type { FromManifestReadThread, ManifestReadRequest } from "./manifest-read-protocol.js";
import type { ManifestFileResult } from "./read-manifest-file.js";

/** Reads and decodes one manifest file; never rejects. */
export type ManifestFileReader = (file: string) => Promise<ManifestFileResult>;

/**
 * The CPU time one file may take to parse and decode. Generous: the largest legitimate manifest
 * (1.5 MiB of Pods) takes a fraction of it; a file of garbage that yaml reports line by line, or
 * nests a hundred thousand levels deep, takes far more. CPU time, not wall time: the thread runs at
 * a low priority, and a busy machine stretches its wall time but not what the file costs.
 */
export const MANIFEST_CPU_BUDGET_MS = 5000;

/**
 * The wall time one file may take however little CPU it got: the machine was too busy to parse it
 * at all. Not the file's fault, so it is read again at the next scan.
 */
export const MANIFEST_WALL_LIMIT_MS = 60_000;

/**
 * The worker's V8 limits. The heap: what the heaviest real 1.5 MiB manifests need (a stream of
 * thousands of pods, one long env list: their YAML tree, positions and pods) with room to spare,
 * far less than some files of garbage take. A valid but absurd manifest, hundreds of thousands of
 * one-letter items in one flow sequence, does not fit and is reported so. The stack: V8's default.
 */
export const MANIFEST_THREAD_RESOURCE_LIMITS: ResourceLimits = {
  maxOldGenerationSizeMb: 256,
  maxYoungGenerationSizeMb: 16,
  stackSizeMb: 4,
};

/** How long the worker stays up after its last file: an editor's save is a burst of events. */
export const MANIFEST_THREAD_IDLE_MS = 2000;

/** How often the CPU time and wall time of the file being read are looked at. */
const WATCH_INTERVAL_MS = 100;

/** USER_HZ, the unit of the times in /proc/<pid>/task/<tid>/stat (fixed at 100 by the kernel's ABI). */
const USER_HZ = 100;

export interface ManifestReadThreadOptions {
  readonly cpuBudgetMs?: number;
  readonly wallLimitMs?: number;
  readonly idleMs?: number;
  readonly resourceLimits?: ResourceLimits;
  /** Where whatever the worker writes to stdout or stderr goes (never the daemon's own stderr). */
  readonly logger?: LoggerPort;
}

interface Pending {
  readonly id: number;
  readonly file: string;
  readonly resolve: (result: ManifestFileResult) => void;
}

interface Running {
  readonly worker: Worker;
  /** Whether the worker has said it is up (with its task id, when it has one). */
  ready: boolean;
  tid: number | undefined;
  /**
   * Requests sent and not yet answered, in order. The worker reads them one after the other, so
   * the first is the file being read now: since `headSince`, with the thread's CPU time then.
   */
  readonly inFlight: Pending[];
  headSince: number;
  headCpuMs: number | undefined;
  /** Set once this worker is done with (ended on purpose, or gone): its later events are ignored. */
  ended: boolean;
}

/**
 * Requests sent ahead to the worker: it goes from one file to the next without waiting for the main
 * thread, while a file that must be ended takes few others' reads with it (they are sent again).
 */
const MAX_IN_FLIGHT = 16;

/** The longest line of the worker's output logged. */
const MAX_OUTPUT_LOGGED = 400;

/** The thread's CPU time (user + system), or undefined when it cannot be read. */
function threadCpuMs(tid: number | undefined): number | undefined {
  if (tid === undefined) return undefined;
  try {
    const stat = parseProcStat(readFileSync(`/proc/self/task/${tid}/stat`, "utf8"));
    return stat === undefined ? undefined : (stat.cpuTicks * 1000) / USER_HZ;
  } catch {
    return undefined;
  }
}

function failed(file: string, code: string, message: string, retry = false): ManifestFileResult {
  const issue: Issue = { severity: "error", path: "", code, message, file };
  return { file, pods: [], issues: [issue], ...(retry ? { retry } : {}) };
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

export class ManifestReadThread {
  readonly #cpuBudgetMs: number;
  readonly #wallLimitMs: number;
  readonly #idleMs: number;
  readonly #resourceLimits: ResourceLimits;
  readonly #logger: LoggerPort | undefined;
  readonly #queue: Pending[] = [];
  #running: Running | undefined;
  #watch: NodeJS.Timeout | undefined;
  #idle: NodeJS.Timeout | undefined;
  #nextId = 1;
  #closed = false;
  /** Workers started so far (a test can tell a reused worker from a new one). */
  started = 0;

  constructor(options: ManifestReadThreadOptions = {}) {
    this.#cpuBudgetMs = options.cpuBudgetMs ?? MANIFEST_CPU_BUDGET_MS;
    this.#wallLimitMs = options.wallLimitMs ?? MANIFEST_WALL_LIMIT_MS;
    this.#idleMs = options.idleMs ?? MANIFEST_THREAD_IDLE_MS;
    this.#resourceLimits = options.resourceLimits ?? MANIFEST_THREAD_RESOURCE_LIMITS;
    this.#logger = options.logger;
  }

  /** Whether a worker is up now. */
  get alive(): boolean {
    return this.#running !== undefined;
  }

  /** Reads one file in the worker (queued behind the files asked for before); never rejects. */
  read(file: string): Promise<ManifestFileResult> {
    if (this.#closed) return Promise.resolve(failed(file, "manifest-unreadable", "the daemon is stopping"));
    return new Promise((resolve) => {
      this.#queue.push({ id: this.#nextId++, file, resolve });
      this.#pump();
    });
  }

  /**
   * Starts the worker now, ahead of the reads (its start-up, mostly loading the parser, then runs
   * beside the caller's other work); it ends after the idle time if no read comes.
   */
  prestart(): void {
    if (this.#closed || this.#running !== undefined) return;
    this.#start();
    this.#scheduleIdleEnd();
  }

  /** A reader function bound to this thread. */
  get reader(): ManifestFileReader {
    return (file) => this.read(file);
  }

  /** Ends the worker; files still queued or being read are answered "the daemon is stopping". */
  async close(): Promise<void> {
    this.#closed = true;
    const running = this.#running;
    const pending = [...(running?.inFlight.splice(0) ?? []), ...this.#queue.splice(0)];
    for (const p of pending) p.resolve(failed(p.file, "manifest-unreadable", "the daemon is stopping"));
    await this.#end();
  }

  #pump(): void {
    if (this.#closed) return;
    if (this.#queue.length === 0) {
      if (this.#running?.inFlight.length === 0) this.#scheduleIdleEnd();
      return;
    }
    clearTimeout(this.#idle);
    const r = this.#running ?? this.#start();
    r.worker.ref();
    while (r.inFlight.length < MAX_IN_FLIGHT) {
      const next = this.#queue.shift();
      if (next === undefined) break;
      if (r.inFlight.length === 0) this.#headStarts(r);
      r.inFlight.push(next);
      const request: ManifestReadRequest = { id: next.id, file: next.file };
      r.worker.postMessage(request);
    }
    if (this.#watch === undefined) {
      this.#watch = setInterval(() => this.#check(), WATCH_INTERVAL_MS);
      this.#watch.unref();
    }
  }

  /** The first request in flight starts being read now (as far as the main thread can tell). */
  #headStarts(running: Running): void {
    running.headSince = Date.now();
    running.headCpuMs = threadCpuMs(running.tid);
  }

  #start(): Running {
    const worker = new Worker(new URL("./manifest-read-thread-main.js", import.meta.url), {
      resourceLimits: this.#resourceLimits,
      // Whatever the worker writes (a library's warning) goes to the log, not to the daemon's stderr.
      stdout: true,
      stderr: true,
    });
    this.started++;
    const running: Running = {
      worker,
      ready: false,
      tid: undefined,
      inFlight: [],
      headSince: Date.now(),
      headCpuMs: undefined,
      ended: false,
    };
    this.#running = running;
    for (const [stream, name] of [
      [worker.stdout, "stdout"],
      [worker.stderr, "stderr"],
    ] as const) {
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        const text = chunk.trim();
        if (text === "") return;
        this.#logger?.warn(
          { file: running.inFlight[0]?.file, output: text.slice(0, MAX_OUTPUT_LOGGED) },
          `the manifest reader wrote to its ${name}`,
        );
      });
    }
    worker.on("message", (message: FromManifestReadThread) => {
      if (running.ended) return;
      if (message.type === "ready") {
        running.ready = true;
        running.tid = message.tid;
        // The CPU time of the file being read counts from here: the worker's start-up is not the file's.
        running.headCpuMs = threadCpuMs(message.tid);
        return;
      }
      const head = running.inFlight[0];
      if (head === undefined || head.id !== message.id) return;
      running.inFlight.shift();
      this.#headStarts(running);
      head.resolve(message.result);
      this.#afterFile();
    });
    worker.on("error", (error: Error & { code?: string }) => {
      if (running.ended) return;
      const head = this.#discard(running);
      if (head !== undefined) {
        const limit = this.#resourceLimits.maxOldGenerationSizeMb;
        head.resolve(
          error.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? failed(
                head.file,
                "manifest-too-costly",
                `needed more than ${limit ?? "the allowed"} MB of memory to parse: not read`,
              )
            : failed(head.file, "manifest-unreadable", `the parser failed: ${error.message}: not read`),
        );
      }
      this.#afterFile();
    });
    worker.on("exit", (code) => {
      if (running.ended) return;
      const head = this.#discard(running);
      head?.resolve(
        failed(head.file, "manifest-unreadable", `the parser ended (exit code ${code}): not read`),
      );
      this.#afterFile();
    });
    return running;
  }

  /** After a file: the next ones sent, or the watch stopped and the idle timer set. */
  #afterFile(): void {
    if ((this.#running?.inFlight.length ?? 0) === 0 && this.#queue.length === 0) {
      clearInterval(this.#watch);
      this.#watch = undefined;
    }
    this.#pump();
  }

  /** Looks at the file being read: past its CPU budget or the wall limit, the worker is ended. */
  #check(): void {
    const running = this.#running;
    const head = running?.inFlight[0];
    if (running === undefined || head === undefined) return;
    const cpuNow = threadCpuMs(running.tid);
    const cpuMs =
      cpuNow !== undefined && running.headCpuMs !== undefined ? cpuNow - running.headCpuMs : undefined;
    const wallMs = Date.now() - running.headSince;
    // Before the worker is up only the wall limit applies; without its CPU time (no /proc), wall
    // time stands in for it.
    const overBudget = running.ready && (cpuMs ?? wallMs) > this.#cpuBudgetMs;
    if (!overBudget && wallMs <= this.#wallLimitMs) return;
    this.#discard(running);
    head.resolve(
      overBudget
        ? failed(
            head.file,
            "manifest-too-costly",
            `took longer than ${seconds(this.#cpuBudgetMs)} of CPU time to parse: not read`,
          )
        : failed(
            head.file,
            "manifest-unreadable",
            `could not be parsed within ${seconds(this.#wallLimitMs)} (the machine is busy): not read; it is read again at the next scan`,
            true,
          ),
    );
    this.#afterFile();
  }

  /**
   * Forgets a worker (ending it if it still runs); its events are ignored from now on. Returns the
   * request it was reading; those sent after it go back to the front of the queue, for the next one.
   */
  #discard(running: Running): Pending | undefined {
    running.ended = true;
    const [head, ...rest] = running.inFlight.splice(0);
    this.#queue.unshift(...rest);
    if (this.#running === running) this.#running = undefined;
    running.worker.terminate().catch(() => undefined);
    return head;
  }

  #scheduleIdleEnd(): void {
    const running = this.#running;
    if (running === undefined) return;
    // An idle worker does not keep the process alive; it ends after a moment.
    running.worker.unref();
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => void this.#end(), this.#idleMs);
    this.#idle.unref();
  }

  async #end(): Promise<void> {
    clearTimeout(this.#idle);
    clearInterval(this.#watch);
    this.#watch = undefined;
    const running = this.#running;
    if (running === undefined || running.inFlight.length > 0) return;
    running.ended = true;
    this.#running = undefined;
    await running.worker.terminate();
  }
}
