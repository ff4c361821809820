/**
 * What the daemon's main thread and its manifest-reading thread (manifest-read-thread-main.ts) say
 * to each other: plain data, structured-cloned. One file at a time: the main thread sends the next
 * request once the answer to the last has come, so the file being read is always known.
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
