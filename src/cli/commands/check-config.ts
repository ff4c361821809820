/**
 * `evictd check-config [FILE] [-- FLAGS]`: reads a KubeletConfiguration and kubelet eviction flags
 * as the kubelet would, reports every problem, and prints the thresholds the kubelet would use.
 */
import { formatThresholdValue } from "../../app/replay/records.js";
import { loadEvictionConfig } from "../../formats/load-eviction-config.js";
import { formatDurationMs } from "../../core/time/duration.js";
import { formatIssue } from "../../core/issues.js";
import { EXIT, InputError } from "../../errors.js";

export async function checkConfigCommand(
  file: string | undefined,
  flags: string[],
  opts: { output: string },
): Promise<number> {
  if (opts.output !== "text" && opts.output !== "json") {
    throw new InputError([
      {
        severity: "error",
        path: "--output",
        code: "enum",
        message: `expected text or json, got ${JSON.stringify(opts.output)}`,
      },
    ]);
  }
  const loaded = await loadEvictionConfig(file, flags);
  for (const w of loaded.warnings) process.stderr.write(formatIssue(w) + "\n");

  const c = loaded.config;
  const rows = c.thresholds.map((t) => ({
    signal: t.signal,
    operator: t.operator,
    value: formatThresholdValue(t.value),
    gracePeriod: formatDurationMs(t.gracePeriodMs),
    minReclaim: formatThresholdValue(t.minReclaim),
    hard: t.gracePeriodMs === 0,
    ...(t.derivedFrom !== undefined ? { derivedFrom: t.derivedFrom } : {}),
  }));
  const summary = {
    thresholds: rows,
    evictionMaxPodGracePeriod: c.maxPodGracePeriodSeconds,
    evictionPressureTransitionPeriod: formatDurationMs(c.pressureTransitionPeriodMs),
    localStorageCapacityIsolation: c.localStorageCapacityIsolation,
    kernelMemcgNotification: c.kernelMemcgNotification,
    enforceNodeAllocatable: c.enforceNodeAllocatable,
  };
  if (opts.output === "json") {
    process.stdout.write(JSON.stringify(summary) + "\n");
    return EXIT.ok;
  }
  const lines = rows.map(
    (r) =>
      `  ${r.signal} < ${r.value}  ${r.hard ? "hard" : `soft, grace ${r.gracePeriod}`}${r.minReclaim !== "0" ? `, min reclaim ${r.minReclaim}` : ""}${r.derivedFrom ? ` (copy of ${r.derivedFrom})` : ""}`,
  );
  process.stdout.write(
    [
      `thresholds (${rows.length}):`,
      ...(lines.length > 0 ? lines : ["  none: no pod will ever be evicted for node pressure"]),
      `evictionMaxPodGracePeriod: ${summary.evictionMaxPodGracePeriod}`,
      `evictionPressureTransitionPeriod: ${summary.evictionPressureTransitionPeriod}`,
      `localStorageCapacityIsolation: ${summary.localStorageCapacityIsolation}`,
      `enforceNodeAllocatable: ${summary.enforceNodeAllocatable.join(",") || "(none)"}`,
      "",
    ].join("\n"),
  );
  return EXIT.ok;
}
