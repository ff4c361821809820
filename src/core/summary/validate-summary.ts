/**
 * The up-front check of a raw Summary API object: reports every problem in the fields eviction reads,
 * without building anything, so a replay can reject bad input before it prints a single step.
 */
import { pathIndex, pathKey, type IssueList } from "../issues.js";
import { describeValue } from "./describe-value.js";
import { parseRfc3339 } from "./rfc3339-time.js";
import { FS_COUNTERS, MEMORY_COUNTERS, RLIMIT_COUNTERS, VOLUME_COUNTERS } from "./summary-fields.js";
import { counterProblem } from "./uint64-counter.js";

type RawObject = Readonly<Record<string, unknown>>;

/**
 * Checks `raw` (a decoded JSON/YAML value) as a Summary API response. `path` names it in issues
 * (`steps[3].summary`). `null` and missing blocks are fine ("not reported"); unknown fields are
 * ignored, because real responses carry many the eviction manager never reads.
 */
export function validateSummary(raw: unknown, path: string, issues: IssueList): void {
  const summary = asObject(raw, path, issues, true);
  if (summary === undefined) return;
  const node = asObject(summary.node, pathKey(path, "node"), issues);
  if (node !== undefined) checkNode(node, pathKey(path, "node"), issues);
  const pods = asList(summary.pods, pathKey(path, "pods"), issues);
  if (pods !== undefined) {
    const podsPath = pathKey(path, "pods");
    for (let i = 0; i < pods.length; i++) {
      const podPath = pathIndex(podsPath, i);
      const pod = asObject(pods[i], podPath, issues, true);
      if (pod !== undefined) checkPod(pod, podPath, issues);
    }
  }
}

function checkNode(node: RawObject, path: string, issues: IssueList): void {
  checkString(node, "nodeName", path, issues, false);
  const systemContainers = asList(node.systemContainers, pathKey(path, "systemContainers"), issues);
  if (systemContainers !== undefined) {
    const listPath = pathKey(path, "systemContainers");
    for (let i = 0; i < systemContainers.length; i++) {
      const itemPath = pathIndex(listPath, i);
      const container = asObject(systemContainers[i], itemPath, issues, true);
      if (container === undefined) continue;
      checkString(container, "name", itemPath, issues, false);
      checkBlock(container, "memory", MEMORY_COUNTERS, itemPath, issues);
    }
  }
  checkBlock(node, "memory", MEMORY_COUNTERS, path, issues);
  checkBlock(node, "fs", FS_COUNTERS, path, issues);
  const runtime = asObject(node.runtime, pathKey(path, "runtime"), issues);
  if (runtime !== undefined) {
    const runtimePath = pathKey(path, "runtime");
    checkBlock(runtime, "imageFs", FS_COUNTERS, runtimePath, issues);
    checkBlock(runtime, "containerFs", FS_COUNTERS, runtimePath, issues);
  }
  checkBlock(node, "rlimit", RLIMIT_COUNTERS, path, issues);
}

function checkPod(pod: RawObject, path: string, issues: IssueList): void {
  const refPath = pathKey(path, "podRef");
  if (pod.podRef === undefined || pod.podRef === null) {
    issues.error(refPath, "missing-field", "podRef is required: pod stats are matched to pods by it");
  } else {
    const ref = asObject(pod.podRef, refPath, issues);
    if (ref !== undefined) {
      checkString(ref, "name", refPath, issues, true);
      checkString(ref, "namespace", refPath, issues, true);
      // Not required: Go decodes a missing uid as "", and replay then matches by namespace/name
      // (metrics-server's fixtures, summary-7.json, carry podRefs without uid).
      checkString(ref, "uid", refPath, issues, false);
    }
  }
  checkBlock(pod, "memory", MEMORY_COUNTERS, path, issues);

  const containers = asList(pod.containers, pathKey(path, "containers"), issues);
  if (containers !== undefined) {
    const listPath = pathKey(path, "containers");
    for (let i = 0; i < containers.length; i++) {
      const itemPath = pathIndex(listPath, i);
      const container = asObject(containers[i], itemPath, issues, true);
      if (container === undefined) continue;
      checkString(container, "name", itemPath, issues, false);
      checkBlock(container, "memory", MEMORY_COUNTERS, itemPath, issues);
      checkBlock(container, "rootfs", FS_COUNTERS, itemPath, issues);
      checkBlock(container, "logs", FS_COUNTERS, itemPath, issues);
    }
  }

  const volumes = asList(pod.volume, pathKey(path, "volume"), issues);
  if (volumes !== undefined) {
    const listPath = pathKey(path, "volume");
    for (let i = 0; i < volumes.length; i++) {
      const itemPath = pathIndex(listPath, i);
      const volume = asObject(volumes[i], itemPath, issues, true);
      if (volume === undefined) continue;
      checkString(volume, "name", itemPath, issues, false);
      checkCounters(volume, VOLUME_COUNTERS, itemPath, issues);
      const pvcRef = asObject(volume.pvcRef, pathKey(itemPath, "pvcRef"), issues);
      if (pvcRef !== undefined) {
        checkString(pvcRef, "name", pathKey(itemPath, "pvcRef"), issues, false);
        checkString(pvcRef, "namespace", pathKey(itemPath, "pvcRef"), issues, false);
      }
    }
  }

  checkBlock(pod, "ephemeral-storage", FS_COUNTERS, path, issues);
  const processStats = asObject(pod.process_stats, pathKey(path, "process_stats"), issues);
  if (processStats !== undefined) {
    checkCounters(processStats, ["process_count"], pathKey(path, "process_stats"), issues);
  }
}

/** A stats block (`memory`, `fs`, ...): an optional object with a `time` and counters. */
function checkBlock(
  parent: RawObject,
  key: string,
  counters: readonly string[],
  parentPath: string,
  issues: IssueList,
): void {
  const raw = parent[key];
  if (raw === undefined || raw === null) return;
  const path = pathKey(parentPath, key);
  const block = asObject(raw, path, issues);
  if (block === undefined) return;
  checkTime(block, path, issues);
  checkCounters(block, counters, path, issues);
}

function checkCounters(block: RawObject, counters: readonly string[], path: string, issues: IssueList): void {
  for (const key of counters) {
    const v = block[key];
    if (v === undefined || v === null) continue;
    // Fast path for the overwhelmingly common case; counterProblem covers the rest.
    if (typeof v === "number" && v >= 0 && Number.isSafeInteger(v)) continue;
    const problem = counterProblem(v);
    if (problem !== undefined) issues.error(pathKey(path, key), "invalid-counter", problem);
  }
}

function checkTime(block: RawObject, path: string, issues: IssueList): void {
  const v = block.time;
  if (v === undefined || v === null) return;
  if (typeof v === "string" && parseRfc3339(v) !== "invalid") return;
  issues.error(
    pathKey(path, "time"),
    "invalid-time",
    `expected an RFC 3339 time such as "2025-01-01T00:00:00Z", got ${describeValue(v)}`,
  );
}

function checkString(obj: RawObject, key: string, path: string, issues: IssueList, required: boolean): void {
  const v = obj[key];
  if (typeof v === "string") {
    if (v !== "" || !required) return;
  } else if (v === undefined || v === null) {
    if (!required) return;
    issues.error(pathKey(path, key), "missing-field", `${key} is required`);
    return;
  }
  const expected = required ? "a non-empty string" : "a string";
  issues.error(pathKey(path, key), "invalid-type", `expected ${expected}, got ${describeValue(v)}`);
}

/**
 * `raw` as an object; `undefined` (silently) when it is missing or null, unless `required` (the
 * summary itself, and list elements: a null pod entry is a broken document, not an unreported block).
 */
function asObject(raw: unknown, path: string, issues: IssueList, required = false): RawObject | undefined {
  if (typeof raw === "object" && raw !== null && !Array.isArray(raw)) return raw as RawObject;
  if ((raw === undefined || raw === null) && !required) return undefined;
  issues.error(path, "invalid-type", `expected an object, got ${describeValue(raw)}`);
  return undefined;
}

function asList(raw: unknown, path: string, issues: IssueList): readonly unknown[] | undefined {
  if (Array.isArray(raw)) return raw as readonly unknown[];
  if (raw === undefined || raw === null) return undefined;
  issues.error(path, "invalid-type", `expected a list, got ${describeValue(raw)}`);
  return undefined;
}
