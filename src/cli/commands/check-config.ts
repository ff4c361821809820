/**
 * `evictd check-config [FILE] [-- FLAGS]`: reads a KubeletConfiguration and kubelet eviction flags
 * as the kubelet would, reports every problem, and prints the thresholds the kubelet would use.
 * `evictd check-config --node FILE`: reads an `evictd run` node file as `run` reads it, reports
 * every problem (also the kubelet fields run does not honour), and prints the thresholds, capacity
 * and allocatable run would use. It only reads files: no cgroup, directory or port is touched.
 */
import { formatThresholdValue } from "../../app/replay/records.js";
import { loadEvictionConfig } from "../../formats/load-eviction-config.js";
import { loadNodeSpec } from "../../formats/node-file.js";
import type { EvictionConfig } from "../../core/model.js";
import type { NodeResources, NodeSpec } from "../../core/node/node-spec.js";
import { formatQuantity, quantityFromInt } from "../../core/quantity.js";
import { formatDurationMs } from "../../core/time/duration.js";
import { formatIssue } from "../../core/issues.js";
import { EXIT, InputError } from "../../errors.js";

function checkOutput(output: string): void {
  if (output !== "text" && output !== "json") {
    throw new InputError([
      {
        severity: "error",
        path: "--output",
        code: "enum",
        message: `expected text or json, got ${JSON.stringify(output)}`,
      },
    ]);
  }
}

/** The eviction settings as printed (json) and their text lines. */
function evictionSummary(c: EvictionConfig): { json: Record<string, unknown>; text: string[] } {
  const rows = c.thresholds.map((t) => ({
    signal: t.signal,
    operator: t.operator,
    value: formatThresholdValue(t.value),
    gracePeriod: formatDurationMs(t.gracePeriodMs),
    minReclaim: formatThresholdValue(t.minReclaim),
    hard: t.gracePeriodMs === 0,
    ...(t.derivedFrom !== undefined ? { derivedFrom: t.derivedFrom } : {}),
  }));
  const json = {
    thresholds: rows,
    evictionMaxPodGracePeriod: c.maxPodGracePeriodSeconds,
    evictionPressureTransitionPeriod: formatDurationMs(c.pressureTransitionPeriodMs),
    localStorageCapacityIsolation: c.localStorageCapacityIsolation,
    kernelMemcgNotification: c.kernelMemcgNotification,
    enforceNodeAllocatable: c.enforceNodeAllocatable,
  };
  const lines = rows.map(
    (r) =>
      `  ${r.signal} < ${r.value}  ${r.hard ? "hard" : `soft, grace ${r.gracePeriod}`}${r.minReclaim !== "0" ? `, min reclaim ${r.minReclaim}` : ""}${r.derivedFrom ? ` (copy of ${r.derivedFrom})` : ""}`,
  );
  const text = [
    `thresholds (${rows.length}):`,
    ...(lines.length > 0 ? lines : ["  none: no pod will ever be evicted for node pressure"]),
    `evictionMaxPodGracePeriod: ${json.evictionMaxPodGracePeriod}`,
    `evictionPressureTransitionPeriod: ${json.evictionPressureTransitionPeriod}`,
    `localStorageCapacityIsolation: ${json.localStorageCapacityIsolation}`,
    `enforceNodeAllocatable: ${json.enforceNodeAllocatable.join(",") || "(none)"}`,
  ];
  return { json, text };
}

export async function checkConfigCommand(
  file: string | undefined,
  flags: string[],
  opts: { output: string },
): Promise<number> {
  checkOutput(opts.output);
  const loaded = await loadEvictionConfig(file, flags);
  for (const w of loaded.warnings) process.stderr.write(formatIssue(w) + "\n");
  const summary = evictionSummary(loaded.config);
  process.stdout.write(
    opts.output === "json" ? JSON.stringify(summary.json) + "\n" : [...summary.text, ""].join("\n"),
  );
  return EXIT.ok;
}

const bytes = (n: bigint): string => formatQuantity(quantityFromInt(n, "BinarySI"));

function resources(r: NodeResources): { memory?: string; pids?: string } {
  return {
    ...(r.memoryBytes !== undefined ? { memory: bytes(r.memoryBytes) } : {}),
    ...(r.pids !== undefined ? { pids: String(r.pids) } : {}),
  };
}

/** The node as `run` computes it: what it offers, what is held back, what pods get. */
function nodeSummary(spec: NodeSpec): Record<string, unknown> {
  return {
    name: spec.name,
    capacity: resources(spec.capacity),
    systemReserved: resources(spec.systemReserved),
    kubeReserved: resources(spec.kubeReserved),
    podsCgroup: resources({
      memoryBytes: spec.podsMemoryLimitBytes,
      ...(spec.podsPidsLimit !== undefined ? { pids: spec.podsPidsLimit } : {}),
    }),
    allocatable: { memory: bytes(spec.allocatableMemoryBytes), pods: spec.maxPods },
    stateDir: spec.stateDir,
    ...(spec.imagefsDir !== undefined ? { imagefsDir: spec.imagefsDir } : {}),
    manifestDir: spec.manifestDir,
    listen: `${spec.listen.host.includes(":") ? `[${spec.listen.host}]` : spec.listen.host}:${spec.listen.port}`,
    housekeepingInterval: formatDurationMs(spec.housekeepingIntervalMs),
    notifications: spec.notifications,
  };
}

const inline = (r: { memory?: string; pids?: string }): string =>
  Object.entries(r)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ") || "none";

/** `check-config --node FILE`: the node file checked as `run` reads it; nothing is started. */
export async function checkNodeFileCommand(
  nodeFile: string,
  extra: readonly (string | undefined)[],
  opts: { output: string },
): Promise<number> {
  checkOutput(opts.output);
  const given = extra.filter((a): a is string => a !== undefined);
  if (given.length > 0)
    throw new InputError([
      {
        severity: "error",
        path: "--node",
        code: "usage",
        message: `takes no KubeletConfiguration file or flags (got ${given.map((a) => JSON.stringify(a)).join(" ")}): the node file's own config and flags are checked`,
      },
    ]);
  const { spec, warnings } = await loadNodeSpec(nodeFile);
  for (const w of warnings) process.stderr.write(formatIssue(w) + "\n");
  const eviction = evictionSummary(spec.eviction);
  const node = nodeSummary(spec);
  if (opts.output === "json") {
    // run wakes on kernel notifications by the node file's `notifications`, not kernelMemcgNotification.
    const { kernelMemcgNotification: _unused, ...settings } = eviction.json;
    process.stdout.write(JSON.stringify({ node, ...settings }) + "\n");
    return EXIT.ok;
  }
  const pods = node["podsCgroup"] as { memory?: string; pids?: string };
  const allocatable = node["allocatable"] as { memory: string; pods: number };
  process.stdout.write(
    [
      `node ${spec.name} (${nodeFile}), as evictd run would use it:`,
      `  capacity: ${inline(node["capacity"] as { memory?: string; pids?: string })}`,
      `  systemReserved: ${inline(node["systemReserved"] as { memory?: string })}; kubeReserved: ${inline(node["kubeReserved"] as { memory?: string })}`,
      `  pods cgroup limit: ${inline(pods)}`,
      `  allocatable: memory ${allocatable.memory} (the pods cgroup less the hard memory.available threshold), pods ${allocatable.pods} (maxPods)`,
      `  stateDir: ${spec.stateDir}${spec.imagefsDir !== undefined ? `; imagefsDir: ${spec.imagefsDir}` : ""}`,
      `  manifestDir: ${spec.manifestDir}`,
      `  listen: ${String(node["listen"])}; housekeepingInterval: ${String(node["housekeepingInterval"])}; notifications: ${spec.notifications}`,
      ...eviction.text,
      "",
    ].join("\n"),
  );
  return EXIT.ok;
}
