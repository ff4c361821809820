/**
 * The comparison's worker pool: trace tasks run on N worker threads (default: the machine's
 * cores), the largest traces first so that the last one to finish is a small one; each task's cells
 * are kept at the task's own index, so the outcome is the same whatever N is and whichever worker
 * ran what. A worker that dies (evictd's own failure, never bad input) fails only the task it held:
 * its cells say so, and a fresh worker takes the next task.
 */
import { statSync } from "node:fs";
import { basename } from "node:path";
import { Worker } from "node:worker_threads";
import type { CellResult } from "../app/compare/cell-result.js";
import type { PoolReply, PoolRequest } from "./pool-protocol.js";
import type { TraceTask } from "./trace-cells.js";

export interface PoolProgress {
  readonly tasksDone: number;
  readonly tasks: number;
  /** Steps read so far, over every task. */
  readonly steps: number;
}

const WORKER_URL = new URL("./fleet-worker-main.js", import.meta.url);

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** Runs every task on `workers` threads; the cells of task i are at index i. */
export async function runPool(
  tasks: readonly TraceTask[],
  workers: number,
  onProgress?: (p: PoolProgress) => void,
): Promise<CellResult[][]> {
  const results: CellResult[][] = tasks.map(() => []);
  const queue = tasks
    .map((task, index) => ({ task, index, size: sizeOf(task.trace) }))
    .sort((a, b) => b.size - a.size || a.index - b.index);
  let done = 0;
  let steps = 0;
  const report = (): void => onProgress?.({ tasksDone: done, tasks: tasks.length, steps });

  const lane = async (): Promise<void> => {
    let worker: Worker | undefined;
    try {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        worker ??= new Worker(WORKER_URL);
        const { task, index } = next;
        const outcome = await runOne(worker, { id: index, task }, (n) => {
          steps += n;
          report();
        });
        if (outcome.kind === "cells") results[index] = [...outcome.cells];
        else {
          // The worker failed (or died): this task's cells say why, the next task gets a new worker.
          results[index] = task.variants.map((v) => ({
            trace: task.trace,
            config: v.name,
            node: basename(task.trace),
            ok: false,
            problems: [`internal error while replaying: ${outcome.message}`],
          }));
          await worker.terminate();
          worker = undefined;
        }
        done++;
        report();
      }
    } finally {
      await worker?.terminate();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(workers, tasks.length)) }, lane));
  return results;
}

/** One task on `worker`: its cells, or why the worker could not give them. */
function runOne(
  worker: Worker,
  request: PoolRequest,
  onSteps: (n: number) => void,
): Promise<{ kind: "cells"; cells: readonly CellResult[] } | { kind: "error"; message: string }> {
  return new Promise((resolve) => {
    const cleanup = (): void => {
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
    };
    const onMessage = (reply: PoolReply): void => {
      if (reply.id !== request.id) return;
      if (reply.kind === "progress") onSteps(reply.steps);
      else {
        cleanup();
        resolve(
          reply.kind === "cells"
            ? { kind: "cells", cells: reply.cells }
            : { kind: "error", message: reply.message },
        );
      }
    };
    const onError = (error: Error): void => {
      cleanup();
      resolve({ kind: "error", message: error.stack ?? error.message });
    };
    const onExit = (code: number): void => {
      cleanup();
      resolve({ kind: "error", message: `the worker thread exited (code ${code})` });
    };
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.on("exit", onExit);
    worker.postMessage(request);
  });
}
