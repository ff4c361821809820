/**
 * The traces a comparison is given: files as named (any form replay reads), and directories as
 * every JSONL trace in them (`.jsonl`, `.ndjson`, each also `.gz` or `.br`, as `evictd record`
 * writes them), in name order, so that a fleet's recordings can be given as the one directory they
 * were collected into. Other files there (a plan, a comparison's JSON) are not traces.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Issue } from "../core/issues.js";

const TRACE_NAME = /\.(jsonl|ndjson)(\.(gz|br))?$/;

/** Files and directories → trace files (duplicates dropped); every missing path is an issue. */
export function listTraces(paths: readonly string[]): { traces: string[]; issues: Issue[] } {
  const traces: string[] = [];
  const issues: Issue[] = [];
  const seen = new Set<string>();
  const push = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    traces.push(file);
  };
  for (const path of paths) {
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      issues.push({
        severity: "error",
        path: "trace",
        code: "file-not-found",
        message: `cannot read ${JSON.stringify(path)}: ${code}`,
        file: path,
      });
      continue;
    }
    if (!isDir) {
      push(path);
      continue;
    }
    const names = readdirSync(path)
      .filter((n) => TRACE_NAME.test(n))
      .sort();
    if (names.length === 0)
      issues.push({
        severity: "error",
        path: "trace",
        code: "no-traces",
        message: `the directory holds no trace (*.jsonl, *.jsonl.br, *.jsonl.gz; name other forms one by one)`,
        file: path,
      });
    for (const n of names) push(join(path, n));
  }
  if (traces.length === 0 && issues.length === 0)
    issues.push({ severity: "error", path: "trace", code: "no-traces", message: "no trace given" });
  return { traces, issues };
}
