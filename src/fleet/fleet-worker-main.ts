/**
 * A worker thread of the comparison's pool (worker-pool.ts): takes one trace task at a time,
 * replays it (trace-cells.ts) and answers with its cells; while it runs, the steps read so far.
 */
import { parentPort } from "node:worker_threads";
import type { PoolReply, PoolRequest } from "./pool-protocol.js";
import { runTraceTask } from "./trace-cells.js";

/** Progress is told every this many steps. */
const PROGRESS_EVERY = 512;

const port = parentPort;
if (port === null) throw new Error("fleet-worker-main runs as a worker thread");
port.on("message", (request: PoolRequest) => {
  const reply = (r: PoolReply): void => port.postMessage(r);
  runTraceTask(request.task, (count) => {
    if (count % PROGRESS_EVERY === 0) reply({ id: request.id, kind: "progress", steps: PROGRESS_EVERY });
  })
    .then((cells) => reply({ id: request.id, kind: "cells", cells }))
    .catch((error: unknown) =>
      reply({
        id: request.id,
        kind: "error",
        message: error instanceof Error ? (error.stack ?? error.message) : String(error),
      }),
    );
});
