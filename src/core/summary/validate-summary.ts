/**
 * The up-front check of a raw Summary API object: reports every problem in the fields evictd reads
 * (what eviction reads, and the pressure and swap figures reports show), without building anything,
 * so a replay can reject bad input before it prints a single step.
 */
import { pathIndex, pathKey, type IssueList } from "../issues.js";
import { describeValue } from "../raw/describe-value.js";
import { isRawObject } from "../raw/raw-object.js";
import {
  type RawContainer,
  type RawCpu,
  type RawFs,
  type RawIo,
  type RawMemory,
  type RawNode,
  type RawPod,
  type RawPodRef,
  type RawProcessStats,
  type RawPsi,
  type RawPsiData,
  type RawPvcRef,
  type RawRlimit,
  type RawRuntime,
  type RawSummary,
  type RawSwap,
  type RawVolume,
} from "./raw-summary.js";
import { Rfc3339Memo } from "../time/rfc3339.js";
import { counterProblem } from "./uint64-counter.js";

/** What every check needs: where to report, and the time-stamp memo of this summary. */
interface Context {
  readonly issues: IssueList;
  readonly times: Rfc3339Memo;
}

/**
 * Checks `raw` (a decoded JSON/YAML value) as a Summary API response. `path` names it in issues
 * (`steps[3].summary`). `null` and missing blocks are fine ("not reported"); unknown fields are
 * ignored, because real responses carry many that the eviction manager never reads.
 *
 * Replay runs this over every step before the first one, so it is written for speed: fields are read
 * by name, and a field's path is only put together when there is something to report.
 */
export interface ValidateSummaryOptions {
  /** Pod entries (the objects themselves) checked before, in an earlier summary: not checked again. */
  readonly checkedPods?: { has(item: unknown): boolean };
}

export function validateSummary(
  raw: unknown,
  path: string,
  issues: IssueList,
  options: ValidateSummaryOptions = {},
): void {
  const ctx: Context = { issues, times: new Rfc3339Memo() };
  if (!isRawObject(raw)) {
    ctx.issues.error(path, "invalid-type", `expected an object, got ${describeValue(raw)}`);
    return;
  }
  const summary = raw as RawSummary;
  if (isPresent(summary.node, path, "node", ctx))
    checkNode(summary.node as RawNode, child(path, "node"), ctx);
  const pods = listAt(summary.pods, path, "pods", ctx);
  const podsPath = child(path, "pods");
  const checked = options.checkedPods;
  for (let i = 0; i < pods.length; i++) {
    if (checked?.has(pods[i]) === true) continue;
    const podPath = pathIndex(podsPath, i);
    if (isListItem(pods[i], podPath, ctx)) checkPod(pods[i] as RawPod, podPath, ctx);
  }
}

function checkNode(node: RawNode, path: string, ctx: Context): void {
  checkString(node.nodeName, path, "nodeName", false, ctx);
  const systemContainers = listAt(node.systemContainers, path, "systemContainers", ctx);
  for (let i = 0; i < systemContainers.length; i++) {
    const itemPath = pathIndex(child(path, "systemContainers"), i);
    if (!isListItem(systemContainers[i], itemPath, ctx)) continue;
    const container = systemContainers[i] as RawContainer;
    checkString(container.name, itemPath, "name", false, ctx);
    checkMemory(container.memory, itemPath, "memory", ctx);
    checkCpuIoSwap(container, itemPath, ctx);
  }
  checkMemory(node.memory, path, "memory", ctx);
  checkFs(node.fs, path, "fs", ctx);
  if (isPresent(node.runtime, path, "runtime", ctx)) {
    const runtime = node.runtime as RawRuntime;
    checkFs(runtime.imageFs, child(path, "runtime"), "imageFs", ctx);
    checkFs(runtime.containerFs, child(path, "runtime"), "containerFs", ctx);
  }
  if (isPresent(node.rlimit, path, "rlimit", ctx)) {
    const rlimit = node.rlimit as RawRlimit;
    const rlimitPath = child(path, "rlimit");
    checkTime(rlimit.time, path, "rlimit", ctx);
    checkCounter(rlimit.maxpid, rlimitPath, "maxpid", ctx);
    checkCounter(rlimit.curproc, rlimitPath, "curproc", ctx);
  }
  checkCpuIoSwap(node, path, ctx);
}

function checkPod(pod: RawPod, path: string, ctx: Context): void {
  const refPath = child(path, "podRef");
  if (pod.podRef === undefined || pod.podRef === null) {
    ctx.issues.error(refPath, "missing-field", "podRef is required: pod stats are matched to pods by it");
  } else if (isPresent(pod.podRef, path, "podRef", ctx)) {
    const ref = pod.podRef as RawPodRef;
    checkString(ref.name, refPath, "name", true, ctx);
    checkString(ref.namespace, refPath, "namespace", true, ctx);
    // Not required: Go decodes a missing uid as "", and replay then matches by namespace/name
    // (metrics-server's fixtures, summary-7.json among them, carry podRefs without a uid).
    checkString(ref.uid, refPath, "uid", false, ctx);
  }
  checkMemory(pod.memory, path, "memory", ctx);

  const containers = listAt(pod.containers, path, "containers", ctx);
  for (let i = 0; i < containers.length; i++) {
    const itemPath = pathIndex(child(path, "containers"), i);
    if (!isListItem(containers[i], itemPath, ctx)) continue;
    const container = containers[i] as RawContainer;
    checkString(container.name, itemPath, "name", false, ctx);
    checkMemory(container.memory, itemPath, "memory", ctx);
    checkFs(container.rootfs, itemPath, "rootfs", ctx);
    checkFs(container.logs, itemPath, "logs", ctx);
    checkCpuIoSwap(container, itemPath, ctx);
  }

  const volumes = listAt(pod.volume, path, "volume", ctx);
  for (let i = 0; i < volumes.length; i++) {
    const itemPath = pathIndex(child(path, "volume"), i);
    if (!isListItem(volumes[i], itemPath, ctx)) continue;
    const volume = volumes[i] as RawVolume;
    checkString(volume.name, itemPath, "name", false, ctx);
    checkCounter(volume.usedBytes, itemPath, "usedBytes", ctx);
    checkCounter(volume.inodesUsed, itemPath, "inodesUsed", ctx);
    if (isPresent(volume.pvcRef, itemPath, "pvcRef", ctx)) {
      const pvcRef = volume.pvcRef as RawPvcRef;
      checkString(pvcRef.name, child(itemPath, "pvcRef"), "name", false, ctx);
      checkString(pvcRef.namespace, child(itemPath, "pvcRef"), "namespace", false, ctx);
    }
  }

  checkFs(pod["ephemeral-storage"], path, "ephemeral-storage", ctx);
  if (isPresent(pod.process_stats, path, "process_stats", ctx)) {
    checkCounter(
      (pod.process_stats as RawProcessStats).process_count,
      child(path, "process_stats"),
      "process_count",
      ctx,
    );
  }
  checkCpuIoSwap(pod, path, ctx);
}

function checkMemory(raw: unknown, parent: string, key: string, ctx: Context): void {
  if (!isPresent(raw, parent, key, ctx)) return;
  const memory = raw as RawMemory;
  if (memory.time !== undefined && memory.time !== null) checkTime(memory.time, parent, key, ctx);
  if (!isPlainCounter(memory.availableBytes))
    reportCounter(memory.availableBytes, parent, key, "availableBytes", ctx);
  if (!isPlainCounter(memory.workingSetBytes))
    reportCounter(memory.workingSetBytes, parent, key, "workingSetBytes", ctx);
  if (!isPlainCounter(memory.usageBytes)) reportCounter(memory.usageBytes, parent, key, "usageBytes", ctx);
  if (!isPlainPsi(memory.psi)) checkPsi(memory.psi, child(parent, key), ctx);
}

/**
 * The blocks no decision reads but reports show, wherever a node, system container, pod or
 * container carries them: cpu (its pressure only), io and swap. Each is first looked at whole,
 * without a path put together (a 110-pod Summary holds some 700 of them); only a block with a
 * problem is gone through again to report it.
 */
function checkCpuIoSwap(
  holder: { readonly cpu?: unknown; readonly io?: unknown; readonly swap?: unknown },
  parent: string,
  ctx: Context,
): void {
  const { cpu, io, swap } = holder;
  if (cpu !== undefined && cpu !== null && !(isRawObject(cpu) && isPlainPsi((cpu as RawCpu).psi)))
    reportCpu(cpu, parent, ctx);
  if (
    io !== undefined &&
    io !== null &&
    !(isRawObject(io) && isPlainTime((io as RawIo).time, ctx) && isPlainPsi((io as RawIo).psi))
  )
    reportIo(io, parent, ctx);
  if (swap !== undefined && swap !== null && !(isRawObject(swap) && isPlainSwap(swap, ctx)))
    reportSwap(swap, parent, ctx);
}

function isPlainSwap(swap: RawSwap, ctx: Context): boolean {
  return (
    isPlainTime(swap.time, ctx) &&
    isPlainCounter(swap.swapAvailableBytes) &&
    isPlainCounter(swap.swapUsageBytes)
  );
}

/** Not reported, or a PSI block whose every figure is a plain counter or percentage. */
function isPlainPsi(raw: unknown): boolean {
  if (raw === undefined || raw === null) return true;
  if (!isRawObject(raw)) return false;
  const psi = raw as RawPsi;
  return isPlainPsiData(psi.some) && isPlainPsiData(psi.full);
}

function isPlainPsiData(raw: unknown): boolean {
  if (raw === undefined || raw === null) return true;
  if (!isRawObject(raw)) return false;
  const data = raw as RawPsiData;
  return (
    isPlainCounter(data.total) &&
    isPercentage(data.avg10) &&
    isPercentage(data.avg60) &&
    isPercentage(data.avg300)
  );
}

function isPlainTime(v: unknown, ctx: Context): boolean {
  return v === undefined || v === null || (typeof v === "string" && ctx.times.parse(v) !== "invalid");
}

function reportCpu(raw: unknown, parent: string, ctx: Context): void {
  if (!isPresent(raw, parent, "cpu", ctx)) return;
  checkPsi((raw as RawCpu).psi, child(parent, "cpu"), ctx);
}

function reportIo(raw: unknown, parent: string, ctx: Context): void {
  if (!isPresent(raw, parent, "io", ctx)) return;
  const io = raw as RawIo;
  checkTime(io.time, parent, "io", ctx);
  checkPsi(io.psi, child(parent, "io"), ctx);
}

function reportSwap(raw: unknown, parent: string, ctx: Context): void {
  if (!isPresent(raw, parent, "swap", ctx)) return;
  const swap = raw as RawSwap;
  const swapPath = child(parent, "swap");
  checkTime(swap.time, parent, "swap", ctx);
  checkCounter(swap.swapAvailableBytes, swapPath, "swapAvailableBytes", ctx);
  checkCounter(swap.swapUsageBytes, swapPath, "swapUsageBytes", ctx);
}

/** `parent.psi`: `some` and `full`, each a uint64 total and three percentages. */
function checkPsi(raw: unknown, parent: string, ctx: Context): void {
  if (!isPresent(raw, parent, "psi", ctx)) return;
  const psi = raw as RawPsi;
  const path = child(parent, "psi");
  checkPsiData(psi.some, path, "some", ctx);
  checkPsiData(psi.full, path, "full", ctx);
}

function checkPsiData(raw: unknown, parent: string, key: string, ctx: Context): void {
  if (!isPresent(raw, parent, key, ctx)) return;
  const data = raw as RawPsiData;
  const path = child(parent, key);
  checkCounter(data.total, path, "total", ctx);
  checkPercentage(data.avg10, path, "avg10", ctx);
  checkPercentage(data.avg60, path, "avg60", ctx);
  checkPercentage(data.avg300, path, "avg300", ctx);
}

/** A PSI average, or not reported: a number from 0 to 100 (the kernel's percentage of wall time). */
function isPercentage(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === "number" && v >= 0 && v <= 100);
}

function checkPercentage(v: unknown, parent: string, key: string, ctx: Context): void {
  if (isPercentage(v)) return;
  ctx.issues.error(
    pathKey(parent, key),
    "invalid-percentage",
    `expected a percentage from 0 to 100, got ${describeValue(v)}`,
  );
}

function checkFs(raw: unknown, parent: string, key: string, ctx: Context): void {
  if (!isPresent(raw, parent, key, ctx)) return;
  const fs = raw as RawFs;
  if (fs.time !== undefined && fs.time !== null) checkTime(fs.time, parent, key, ctx);
  if (!isPlainCounter(fs.availableBytes))
    reportCounter(fs.availableBytes, parent, key, "availableBytes", ctx);
  if (!isPlainCounter(fs.capacityBytes)) reportCounter(fs.capacityBytes, parent, key, "capacityBytes", ctx);
  if (!isPlainCounter(fs.usedBytes)) reportCounter(fs.usedBytes, parent, key, "usedBytes", ctx);
  if (!isPlainCounter(fs.inodesFree)) reportCounter(fs.inodesFree, parent, key, "inodesFree", ctx);
  if (!isPlainCounter(fs.inodes)) reportCounter(fs.inodes, parent, key, "inodes", ctx);
  if (!isPlainCounter(fs.inodesUsed)) reportCounter(fs.inodesUsed, parent, key, "inodesUsed", ctx);
}

/** The common case, decided inline: not reported, or a plain non-negative safe integer. */
function isPlainCounter(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === "number" && v >= 0 && Number.isSafeInteger(v));
}

/** The rare case: anything else may still be valid (bigint, exact-integer sentinel). */
function reportCounter(v: unknown, parent: string, block: string, key: string, ctx: Context): void {
  const problem = counterProblem(v);
  if (problem !== undefined)
    ctx.issues.error(pathKey(pathKey(parent, block), key), "invalid-counter", problem);
}

function checkCounter(v: unknown, parent: string, key: string, ctx: Context): void {
  if (isPlainCounter(v)) return;
  const problem = counterProblem(v);
  if (problem !== undefined) ctx.issues.error(pathKey(parent, key), "invalid-counter", problem);
}

function checkTime(v: unknown, parent: string, block: string, ctx: Context): void {
  if (v === undefined || v === null) return;
  if (typeof v === "string" && ctx.times.parse(v) !== "invalid") return;
  ctx.issues.error(
    pathKey(pathKey(parent, block), "time"),
    "invalid-time",
    `expected an RFC 3339 time such as "2025-01-01T00:00:00Z", got ${describeValue(v)}`,
  );
}

function checkString(v: unknown, parent: string, key: string, required: boolean, ctx: Context): void {
  if (typeof v === "string") {
    if (v !== "" || !required) return;
  } else if (v === undefined || v === null) {
    if (required) ctx.issues.error(pathKey(parent, key), "missing-field", `${key} is required`);
    return;
  }
  const expected = required ? "a non-empty string" : "a string";
  ctx.issues.error(pathKey(parent, key), "invalid-type", `expected ${expected}, got ${describeValue(v)}`);
}

/** Whether `raw` is a reported object; missing or null is "not reported", anything else an error. */
function isPresent(raw: unknown, parent: string, key: string, ctx: Context): boolean {
  if (raw === undefined || raw === null) return false;
  if (isRawObject(raw)) return true;
  ctx.issues.error(pathKey(parent, key), "invalid-type", `expected an object, got ${describeValue(raw)}`);
  return false;
}

/** A list element must be an object: a null pod entry is a broken document, not an unreported block. */
function isListItem(raw: unknown, path: string, ctx: Context): boolean {
  if (isRawObject(raw)) return true;
  ctx.issues.error(path, "invalid-type", `expected an object, got ${describeValue(raw)}`);
  return false;
}

const EMPTY: readonly unknown[] = [];

/** `parent.key` for a key known to be a plain identifier (pathKey, minus its per-call regex test). */
function child(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

/** The list at `parent.key`; missing or null is an empty list (Go's nil slice). */
function listAt(raw: unknown, parent: string, key: string, ctx: Context): readonly unknown[] {
  if (Array.isArray(raw)) return raw as readonly unknown[];
  if (raw !== undefined && raw !== null) {
    ctx.issues.error(pathKey(parent, key), "invalid-type", `expected a list, got ${describeValue(raw)}`);
  }
  return EMPTY;
}
