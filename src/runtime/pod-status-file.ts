/**
 * A pod's persisted status, `<stateDir>/pods/<podDirName(uid)>/status.json`: written atomically (temp file,
 * fsync, rename) so a daemon killed mid-write leaves the old or the new file, never half of one;
 * read back after a restart so evicted, rejected and completed pods stay as they were.
 */
import { readFile, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { QosClass } from "../core/model.js";
import type { PodPhase } from "./pod-phase.js";
import type { RunnablePod } from "./runnable-pod.js";
import { isRawObject } from "../core/raw/raw-object.js";

export const STATUS_FILE_VERSION = 1;

export type ContainerKind = "init" | "sidecar" | "regular";

export interface PodCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

/** One container's state, enough to adopt its process or restart it after a daemon restart. */
export interface PersistedContainer {
  readonly name: string;
  readonly kind: ContainerKind;
  readonly state: "waiting" | "running" | "terminated";
  readonly restarts: number;
  /** Steps taken on the restart back-off curve (reset after a long enough run). */
  readonly backoffSteps: number;
  /** The main process while running, and its start time in clock ticks since boot (guards against pid reuse). */
  readonly pid?: number;
  readonly startTicks?: string;
  readonly startedAt?: number;
  readonly finishedAt?: number;
  /** Exit code of the current (terminated) or last run. */
  readonly exitCode?: number;
  /** `Completed`, `Error`, `OOMKilled`, `ContainerStatusUnknown`, or the waiting reason (`CrashLoopBackOff`). */
  readonly reason?: string;
}

export interface PersistedPodStatus {
  readonly version: typeof STATUS_FILE_VERSION;
  readonly uid: string;
  readonly phase: PodPhase;
  readonly reason?: string;
  readonly message?: string;
  readonly conditions: readonly PodCondition[];
  readonly qosClass: QosClass;
  /** RFC 3339, when the runtime first acknowledged the pod (the kubelet's status.startTime). */
  readonly startTime?: string;
  /** Container name → restart count. */
  readonly restarts: Readonly<Record<string, number>>;
  /** Never (re)started again: evicted, rejected or completed. */
  readonly final: boolean;
  /** Phase, reason and message were given by the caller (eviction, rejection), not derived from the containers. */
  readonly statusFixed: boolean;
  /** Every init container has completed (sidecars: started). */
  readonly initialized: boolean;
  readonly containers: readonly PersistedContainer[];
  /** The pod manifest as decoded (quantities included). */
  readonly pod: RunnablePod;
}

const BIGINT_KEY = "$bigint";

/** JSON with bigints kept exact as `{"$bigint": "123"}` (quantities hold bigints). */
export function encodeStatus(status: PersistedPodStatus): string {
  return `${JSON.stringify(
    status,
    (_key, value: unknown) => (typeof value === "bigint" ? { [BIGINT_KEY]: value.toString() } : value),
    2,
  )}\n`;
}

const PHASES = new Set(["Pending", "Running", "Succeeded", "Failed"]);

/** Parses a status file's text; a string says what is wrong. */
export function decodeStatus(text: string): PersistedPodStatus | string {
  let value: unknown;
  try {
    value = JSON.parse(text, (_key, v: unknown) => {
      if (isRawObject(v)) {
        const keys = Object.keys(v);
        const big = v[BIGINT_KEY];
        if (keys.length === 1 && typeof big === "string" && /^-?\d+$/.test(big)) return BigInt(big);
      }
      return v;
    });
  } catch (error) {
    return `not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (typeof value !== "object" || value === null) return "not an object";
  const s = value as Record<string, unknown>;
  if (s["version"] !== STATUS_FILE_VERSION) return `unsupported version ${JSON.stringify(s["version"])}`;
  if (typeof s["uid"] !== "string") return "uid missing";
  if (typeof s["phase"] !== "string" || !PHASES.has(s["phase"]))
    return `invalid phase ${JSON.stringify(s["phase"])}`;
  if (!Array.isArray(s["containers"]) || !Array.isArray(s["conditions"]))
    return "containers or conditions missing";
  const pod = s["pod"] as Record<string, unknown> | undefined;
  if (typeof pod !== "object" || pod === null || pod["uid"] !== s["uid"] || !Array.isArray(pod["containers"]))
    return "pod manifest missing or not matching the uid";
  return value as PersistedPodStatus;
}

/** A status file that could not be read back. */
export interface StatusFileError {
  readonly file: string;
  readonly message: string;
}

/** Every `<podsRoot>/<dir>/status.json`; unreadable ones are reported, not thrown. */
export async function readStatusFiles(
  podsRoot: string,
): Promise<{ statuses: PersistedPodStatus[]; errors: StatusFileError[] }> {
  const statuses: PersistedPodStatus[] = [];
  const errors: StatusFileError[] = [];
  let dirs: string[];
  try {
    dirs = (await readdir(podsRoot, { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { statuses, errors };
    throw error;
  }
  for (const dir of dirs) {
    const file = join(podsRoot, dir, "status.json");
    // Temp files a crash left mid-write: the status file itself is whole (old or new).
    const temps = await readdir(join(podsRoot, dir)).catch(() => [] as string[]);
    for (const name of temps)
      if (name.startsWith("status.json.tmp-")) await rm(join(podsRoot, dir, name), { force: true });
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      // A pod directory without status (removed mid-way, or GC'd) holds nothing to restore.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") errors.push({ file, message: String(error) });
      continue;
    }
    const decoded = decodeStatus(text);
    if (typeof decoded === "string") errors.push({ file, message: decoded });
    else statuses.push(decoded);
  }
  return { statuses, errors };
}
