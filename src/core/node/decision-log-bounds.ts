/**
 * The node file's `decisionLog: {maxSize, maxFiles}`: where `<stateDir>/decisions.jsonl` is rotated
 * and how many of its files are kept, so the decision log's share of nodefs is bounded by
 * `maxFiles × maxSize` (plus one record, which is never split). The same shape and defaults as
 * the kubelet's container logs (`containerLogMaxSize` 10Mi, `containerLogMaxFiles` 5, the live
 * file counted): a node's own files on nodefs follow one rule. There is no way to turn it off.
 */
import { pathKey, type IssueList } from "../issues.js";
import { parseQuantity, QuantityError, quantityValue } from "../quantity.js";
import { describeValue } from "../raw/describe-value.js";
import { isRawObject } from "../raw/raw-object.js";

export interface DecisionLogBounds {
  /** The live file is rotated before an append would take it past this many bytes. */
  readonly maxBytes: number;
  /** Files kept, the live one included: `decisions.jsonl` and `decisions.jsonl.1` … `.{maxFiles − 1}`. */
  readonly maxFiles: number;
}

export const DEFAULT_DECISION_LOG_BOUNDS: DecisionLogBounds = { maxBytes: 10 * 1024 * 1024, maxFiles: 5 };

/** A file smaller than this would hold only a few records of a busy node: rotation all the time, little history. */
const MIN_MAX_BYTES = 16 * 1024;
/** More files than this is a typo (and a directory of renames at every rotation). */
const MAX_MAX_FILES = 100;

/** Reads `decisionLog` from the node file (the defaults when it is absent), collecting every problem. */
export function readDecisionLogBounds(raw: unknown, path: string, issues: IssueList): DecisionLogBounds {
  if (raw === undefined || raw === null) return DEFAULT_DECISION_LOG_BOUNDS;
  if (!isRawObject(raw)) {
    issues.error(path, "type", `expected {maxSize: 10Mi, maxFiles: 5}, got ${describeValue(raw)}`);
    return DEFAULT_DECISION_LOG_BOUNDS;
  }
  for (const k of Object.keys(raw)) {
    if (k !== "maxSize" && k !== "maxFiles")
      issues.warning(
        pathKey(path, k),
        "unknown-field",
        `unknown field ${JSON.stringify(k)} (ignored; expected maxSize, maxFiles)`,
      );
  }
  return {
    maxBytes:
      readMaxSize(raw["maxSize"], pathKey(path, "maxSize"), issues) ?? DEFAULT_DECISION_LOG_BOUNDS.maxBytes,
    maxFiles:
      readMaxFiles(raw["maxFiles"], pathKey(path, "maxFiles"), issues) ??
      DEFAULT_DECISION_LOG_BOUNDS.maxFiles,
  };
}

function readMaxSize(v: unknown, p: string, issues: IssueList): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string" && typeof v !== "number" && typeof v !== "bigint") {
    issues.error(p, "type", `expected a size such as 10Mi, got ${describeValue(v)}`);
    return undefined;
  }
  let bytes: bigint;
  try {
    bytes = quantityValue(parseQuantity(String(v)));
  } catch (e) {
    if (!(e instanceof QuantityError)) throw e;
    issues.error(p, "invalid-quantity", `invalid quantity ${describeValue(v)}: ${e.message}`);
    return undefined;
  }
  if (bytes < BigInt(MIN_MAX_BYTES)) {
    issues.error(p, "range", `must be at least 16Ki, got ${describeValue(v)}`);
    return undefined;
  }
  return bytes > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(bytes);
}

function readMaxFiles(v: unknown, p: string, issues: IssueList): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === "bigint" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n)) {
    issues.error(p, "type", `expected a whole number of files such as 5, got ${describeValue(v)}`);
    return undefined;
  }
  if (n < 2 || n > MAX_MAX_FILES) {
    issues.error(
      p,
      "range",
      `must be from 2 (the live file and one rotated one) to ${MAX_MAX_FILES}, got ${describeValue(v)}`,
    );
    return undefined;
  }
  return n;
}
