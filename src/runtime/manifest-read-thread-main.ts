/**
 * The manifest-reading thread (a worker started by manifest-read-thread.ts): reads and decodes one
 * manifest file per request and posts the pods and issues back. Whatever a file does to the parser
 * (minutes of CPU, gigabytes of heap, a stack overflow) happens here, in an isolate of its own that
 * the main thread can terminate, and never on the thread that serves HTTP and runs the pods.
 */
import { getPriority, setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { currentThreadId } from "../linux/thread-priority.js";
import type { FromManifestReadThread, ManifestReadRequest } from "./manifest-read-protocol.js";
import { readManifestFile, type ManifestFileResult } from "./read-manifest-file.js";

/**
 * The nice value the thread lowers itself to (never raises itself above where it started): parsing
 * yields the CPU to the pods, HTTP and the loop thread. Its budget is CPU time, not wall time, so
 * running at a low priority on a busy machine does not fail a legitimate manifest.
 */
const READ_THREAD_NICE = 10;

// Problems are reported by their messages. A stack trace for each of yaml's errors (one per line
// of a file of garbage, hundreds of thousands) would cost more time and heap than the file itself.
Error.stackTraceLimit = 0;

const port = parentPort;
if (port === null) throw new Error("manifest-read-thread-main.js runs as a worker thread only");

const tid = currentThreadId();
if (tid !== undefined) {
  try {
    if (getPriority(tid) < READ_THREAD_NICE) setPriority(tid, READ_THREAD_NICE);
  } catch {
    // Left at the priority it started with: the CPU budget still bounds it.
  }
}

const post = (message: FromManifestReadThread): void => port.postMessage(message);

/** Reads one file; whatever happens, the answer names the file. */
async function answer(request: ManifestReadRequest): Promise<void> {
  let result: ManifestFileResult;
  try {
    result = await readManifestFile(request.file);
  } catch (error) {
    // readManifestFile never throws for bad input; this is a last resort that names the file.
    result = {
      file: request.file,
      pods: [],
      issues: [
        {
          severity: "error",
          path: "",
          code: "manifest-unreadable",
          message: `the file cannot be read: ${error instanceof Error ? error.message : String(error)}`,
          file: request.file,
        },
      ],
    };
  }
  post({ type: "result", id: request.id, result });
}

// One file at a time, in the order asked: the main thread knows which file is being read (the
// first it has no answer for) and whose budget the time spent counts against.
let reading = Promise.resolve();
port.on("message", (request: ManifestReadRequest) => {
  reading = reading.then(() => answer(request));
});

post({ type: "ready", tid });
