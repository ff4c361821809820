/**
 * `evictd check-config [FILE] [-- FLAGS]`: reads a KubeletConfiguration and kubelet eviction flags
 * as the kubelet would, reports every problem, and prints the thresholds the kubelet would use.
 */
import { formatThresholdValue } from "../../app/replay/records.js";
import { loadKubeletConfigFile } from "../../formats/load-kubelet-config-file.js";
import { locateIssues } from "../../formats/position-lookup.js";
import { buildEvictionConfig } from "../../core/config/build-eviction-config.js";
import { formatDurationMs } from "../../core/time/duration.js";
import { formatIssue, type Issue } from "../../core/issues.js";
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
  let config: unknown;
  let locate = (issues: Issue[]): Issue[] => issues;
  if (file !== undefined) {
    const loaded = await loadKubeletConfigFile(file);
    if (!loaded.ok) throw new InputError(loaded.issues);
    config = loaded.value;
    locate = (issues) => locateIssues(issues, "config", loaded.positions, file);
  }
  const built = buildEvictionConfig({
    ...(config !== undefined ? { config } : {}),
    configPath: "config",
    flags,
    flagsPath: "flags",
  });
  if (!built.ok) throw new InputError(locate(built.issues));
  for (const w of locate(built.warnings)) process.stderr.write(formatIssue(w) + "\n");

  const c = built.config;
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
