/** The messages between the comparison's pool and its worker threads (plain data). */
import type { CellResult } from "../app/compare/cell-result.js";
import type { TraceTask } from "./trace-cells.js";

export interface PoolRequest {
  readonly id: number;
  readonly task: TraceTask;
}

export type PoolReply =
  /** `steps` more steps read. */
  | { readonly id: number; readonly kind: "progress"; readonly steps: number }
  | { readonly id: number; readonly kind: "cells"; readonly cells: readonly CellResult[] }
  /** A failure of evictd itself (bad input fails cells, never the task). */
  | { readonly id: number; readonly kind: "error"; readonly message: string };
