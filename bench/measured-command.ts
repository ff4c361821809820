/**
 * Runs `node SCRIPT ARGS...` in this process and, at exit, writes what it cost to USAGE_FILE:
 * CPU seconds over every thread (the worker pool's included), from getrusage(2), and the peak
 * resident set (VmHWM). The benchmarks measure a command this way in a process of its own, so that one
 * measurement's peak is not another's.
 *
 *   node dist/bench/measured-command.js USAGE_FILE SCRIPT [ARGS...]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [usageFile, script, ...rest] = process.argv.slice(2);
if (usageFile === undefined || script === undefined) {
  process.stderr.write("usage: node dist/bench/measured-command.js USAGE_FILE SCRIPT [ARGS...]\n");
  process.exit(2);
}
/**
 * The peak resident set of this process's own memory since it started: VmHWM. Not getrusage's
 * maxrss, which Linux carries over from the parent across fork and exec: a child of a benchmark
 * holding 400 MB would report at least that much.
 */
function peakRssKiB(fallback: number): number {
  try {
    const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"));
    return m?.[1] !== undefined ? Number(m[1]) : fallback;
  } catch {
    return fallback;
  }
}

process.on("exit", () => {
  const usage = process.resourceUsage();
  writeFileSync(
    usageFile,
    JSON.stringify({
      cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
      maxRssKiB: peakRssKiB(usage.maxRSS),
    }),
  );
});
// The script reads its arguments from process.argv, as when run directly.
process.argv = [process.argv[0] ?? "node", script, ...rest];
await import(pathToFileURL(script).href);
