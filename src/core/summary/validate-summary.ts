/**
 * The up-front check of a raw Summary API object: reports every problem in the fields eviction reads,
 * without building anything, so a replay can reject bad input before it prints a single step.
 */
import { pathIndex, pathKey, type IssueList } from "../issues.js";
import { describeValue } from "./describe-value.js";
import {
  isRawObject,
  type RawContainer,
  type RawFs,
  type RawMemory,
  type RawNode,
  type RawPod,
  type RawPodRef,
  type RawProcessStats,
  type RawPvcRef,
  type RawRlimit,
  type RawRuntime,
  type RawSummary,
  type RawVolume,
} from "./raw-summary.js";
import { parseRfc3339 } from "./rfc3339-time.js";
import { counterProblem } from "./uint64-counter.js";

/**
 * Checks `raw` (a decoded JSON/YAML value) as a Summary API response. `path` names it in issues
 * (`steps[3].summary`). `null` and missing blocks are fine ("not reported"); unknown fields are
 * ignored, because real responses carry many that the eviction manager never reads.
 *
 * Replay runs this over every step before the first one, so it is written for speed: fields are read
 * by name, and a field's path is only put together when there is something to report.
 */
export function validateSummary(raw: unknown, path: string, issues: IssueList): void {
  if (!isRawObject(raw)) {
    issues.error(path, "invalid-type", `expected an object, got ${describeValue(raw)}`);
    return;
  }
  const summary = raw as RawSummary;
  if (isPresent(summary.node, path, "node", issues)) checkNode(summary.node as RawNode, child(path, "node"), issues);
  const pods = listAt(summary.pods, path, "pods", issues);
  const podsPath = child(path, "pods");
  for (let i = 0; i < pods.length; i++) {
    const podPath = pathIndex(podsPath, i);
    if (isListItem(pods[i], podPath, issues)) checkPod(pods[i] as RawPod, podPath, issues);
  }
}

function checkNode(node: RawNode, path: string, issues: IssueList): void {
  checkString(node.nodeName, path, "nodeName", false, issues);
  const systemContainers = listAt(node.systemContainers, path, "systemContainers", issues);
  for (let i = 0; i < systemContainers.length; i++) {
    const itemPath = pathIndex(child(path, "systemContainers"), i);
    if (!isListItem(systemContainers[i], itemPath, issues)) continue;
    const container = systemContainers[i] as RawContainer;
    checkString(container.name, itemPath, "name", false, issues);
    checkMemory(container.memory, itemPath, "memory", issues);
  }
  checkMemory(node.memory, path, "memory", issues);
  checkFs(node.fs, path, "fs", issues);
  if (isPresent(node.runtime, path, "runtime", issues)) {
    const runtime = node.runtime as RawRuntime;
    checkFs(runtime.imageFs, child(path, "runtime"), "imageFs", issues);
    checkFs(runtime.containerFs, child(path, "runtime"), "containerFs", issues);
  }
  if (isPresent(node.rlimit, path, "rlimit", issues)) {
    const rlimit = node.rlimit as RawRlimit;
    const rlimitPath = child(path, "rlimit");
    checkTime(rlimit.time, path, "rlimit", issues);
    checkCounter(rlimit.maxpid, rlimitPath, "maxpid", issues);
    checkCounter(rlimit.curproc, rlimitPath, "curproc", issues);
  }
}

function checkPod(pod: RawPod, path: string, issues: IssueList): void {
  const refPath = child(path, "podRef");
  if (pod.podRef === undefined || pod.podRef === null) {
    issues.error(refPath, "missing-field", "podRef is required: pod stats are matched to pods by it");
  } else if (isPresent(pod.podRef, path, "podRef", issues)) {
    const ref = pod.podRef as RawPodRef;
    checkString(ref.name, refPath, "name", true, issues);
    checkString(ref.namespace, refPath, "namespace", true, issues);
    // Not required: Go decodes a missing uid as "", and replay then matches by namespace/name
    // (metrics-server's fixtures, summary-7.json among them, carry podRefs without a uid).
    checkString(ref.uid, refPath, "uid", false, issues);
  }
  checkMemory(pod.memory, path, "memory", issues);

  const containers = listAt(pod.containers, path, "containers", issues);
  for (let i = 0; i < containers.length; i++) {
    const itemPath = pathIndex(child(path, "containers"), i);
    if (!isListItem(containers[i], itemPath, issues)) continue;
    const container = containers[i] as RawContainer;
    checkString(container.name, itemPath, "name", false, issues);
    checkMemory(container.memory, itemPath, "memory", issues);
    checkFs(container.rootfs, itemPath, "rootfs", issues);
    checkFs(container.logs, itemPath, "logs", issues);
  }

  const volumes = listAt(pod.volume, path, "volume", issues);
  for (let i = 0; i < volumes.length; i++) {
    const itemPath = pathIndex(child(path, "volume"), i);
    if (!isListItem(volumes[i], itemPath, issues)) continue;
    const volume = volumes[i] as RawVolume;
    checkString(volume.name, itemPath, "name", false, issues);
    checkCounter(volume.usedBytes, itemPath, "usedBytes", issues);
    checkCounter(volume.inodesUsed, itemPath, "inodesUsed", issues);
    if (isPresent(volume.pvcRef, itemPath, "pvcRef", issues)) {
      const pvcRef = volume.pvcRef as RawPvcRef;
      checkString(pvcRef.name, child(itemPath, "pvcRef"), "name", false, issues);
      checkString(pvcRef.namespace, child(itemPath, "pvcRef"), "namespace", false, issues);
    }
  }

  checkFs(pod["ephemeral-storage"], path, "ephemeral-storage", issues);
  if (isPresent(pod.process_stats, path, "process_stats", issues)) {
    checkCounter((pod.process_stats as RawProcessStats).process_count, child(path, "process_stats"), "process_count", issues);
  }
}

function checkMemory(raw: unknown, parent: string, key: string, issues: IssueList): void {
  if (!isPresent(raw, parent, key, issues)) return;
  const memory = raw as RawMemory;
  if (memory.time !== undefined && memory.time !== null) checkTime(memory.time, parent, key, issues);
  if (!isPlainCounter(memory.availableBytes)) reportCounter(memory.availableBytes, parent, key, "availableBytes", issues);
  if (!isPlainCounter(memory.workingSetBytes)) reportCounter(memory.workingSetBytes, parent, key, "workingSetBytes", issues);
  if (!isPlainCounter(memory.usageBytes)) reportCounter(memory.usageBytes, parent, key, "usageBytes", issues);
}

function checkFs(raw: unknown, parent: string, key: string, issues: IssueList): void {
  if (!isPresent(raw, parent, key, issues)) return;
  const fs = raw as RawFs;
  if (fs.time !== undefined && fs.time !== null) checkTime(fs.time, parent, key, issues);
  if (!isPlainCounter(fs.availableBytes)) reportCounter(fs.availableBytes, parent, key, "availableBytes", issues);
  if (!isPlainCounter(fs.capacityBytes)) reportCounter(fs.capacityBytes, parent, key, "capacityBytes", issues);
  if (!isPlainCounter(fs.usedBytes)) reportCounter(fs.usedBytes, parent, key, "usedBytes", issues);
  if (!isPlainCounter(fs.inodesFree)) reportCounter(fs.inodesFree, parent, key, "inodesFree", issues);
  if (!isPlainCounter(fs.inodes)) reportCounter(fs.inodes, parent, key, "inodes", issues);
  if (!isPlainCounter(fs.inodesUsed)) reportCounter(fs.inodesUsed, parent, key, "inodesUsed", issues);
}

/** The common case, decided inline: not reported, or a plain non-negative safe integer. */
function isPlainCounter(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === "number" && v >= 0 && Number.isSafeInteger(v));
}

/** The rare case: anything else may still be valid (bigint, exact-integer sentinel). */
function reportCounter(v: unknown, parent: string, block: string, key: string, issues: IssueList): void {
  const problem = counterProblem(v);
  if (problem !== undefined) issues.error(pathKey(pathKey(parent, block), key), "invalid-counter", problem);
}

function checkCounter(v: unknown, parent: string, key: string, issues: IssueList): void {
  if (isPlainCounter(v)) return;
  const problem = counterProblem(v);
  if (problem !== undefined) issues.error(pathKey(parent, key), "invalid-counter", problem);
}

function checkTime(v: unknown, parent: string, block: string, issues: IssueList): void {
  if (v === undefined || v === null) return;
  if (typeof v === "string" && parseRfc3339(v) !== "invalid") return;
  issues.error(
    pathKey(pathKey(parent, block), "time"),
    "invalid-time",
    `expected an RFC 3339 time such as "2025-01-01T00:00:00Z", got ${describeValue(v)}`,
  );
}

function checkString(v: unknown, parent: string, key: string, required: boolean, issues: IssueList): void {
  if (typeof v === "string") {
    if (v !== "" || !required) return;
  } else if (v === undefined || v === null) {
    if (required) issues.error(pathKey(parent, key), "missing-field", `${key} is required`);
    return;
  }
  const expected = required ? "a non-empty string" : "a string";
  issues.error(pathKey(parent, key), "invalid-type", `expected ${expected}, got ${describeValue(v)}`);
}

/** Whether `raw` is a reported object; missing or null is "not reported", anything else an error. */
function isPresent(raw: unknown, parent: string, key: string, issues: IssueList): boolean {
  if (raw === undefined || raw === null) return false;
  if (isRawObject(raw)) return true;
  issues.error(pathKey(parent, key), "invalid-type", `expected an object, got ${describeValue(raw)}`);
  return false;
}

/** A list element must be an object: a null pod entry is a broken document, not an unreported block. */
function isListItem(raw: unknown, path: string, issues: IssueList): boolean {
  if (isRawObject(raw)) return true;
  issues.error(path, "invalid-type", `expected an object, got ${describeValue(raw)}`);
  return false;
}

const EMPTY: readonly unknown[] = [];

/** `parent.key` for a key known to be a plain identifier (pathKey, minus its per-call regex test). */
function child(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

/** The list at `parent.key`; missing or null is an empty list (Go's nil slice). */
function listAt(raw: unknown, parent: string, key: string, issues: IssueList): readonly unknown[] {
  if (Array.isArray(raw)) return raw as readonly unknown[];
  if (raw !== undefined && raw !== null) {
    issues.error(pathKey(parent, key), "invalid-type", `expected a list, got ${describeValue(raw)}`);
  }
  return EMPTY;
}
