/**
 * What the daemon's main thread and its manifest-reading thread (manifest-read-thread-main.ts) say
 * to each other: plain data, structured-cloned. The main thread may send requests ahead; the thread
 * reads them one after the other and answers in the same order, so the file being read is always
 * the first one not yet answered.
 */
import type { ManifestFileResult } from "./read-manifest-file.js";

/** Main thread → reading thread: read and decode this file. */
export interface ManifestReadRequest {
  readonly id: number;
  readonly file: string;
}

/** Reading thread → main thread. */
export type FromManifestReadThread =
  /** The thread is up: its kernel task id (undefined off Linux), whose CPU time the main thread watches. */
  | { readonly type: "ready"; readonly tid: number | undefined }
  | { readonly type: "result"; readonly id: number; readonly result: ManifestFileResult };
