/**
 * `evictd explain --node NAME`: one look at a cluster node: each signal against the kubelet's
 * thresholds, the pressure conditions, what the eviction manager would do now and the ranking with
 * the reason for every pod's place, as a table (or JSON).
 */
import { explainClusterNode, type NodeExplanation } from "../../app/node-view/explain-node.js";
import type { NodeMemoryViewsView } from "../../app/node-view/node-memory-views-view.js";
import { connectClusterNode } from "../../kubernetes/index.js";
import { formatIssue, type Issue } from "../../core/issues.js";
import { clusterEvictionSettingsOf } from "./cluster-options.js";
import { EXIT, InputError } from "../../errors.js";
import { writeStdout } from "../output/output-failure.js";
import { systemClock } from "../../linux/system-clock.js";
import { connectOptions, type ClusterCliOptions } from "./cluster-options.js";
import { checkNodeLocalOptions, type NodeLocalCliOptions } from "./node-local-options.js";
import { terminalSafe } from "../output/terminal-text.js";
import { thresholdText } from "../../app/report/threshold-text.js";

export async function explainCommand(
  opts: ClusterCliOptions & NodeLocalCliOptions & { output: string },
): Promise<number> {
  const issues: Issue[] = [];
  if (opts.output !== "table" && opts.output !== "json")
    issues.push({
      severity: "error",
      path: "--output",
      code: "enum",
      message: `expected table or json, got ${JSON.stringify(opts.output)}`,
    });
  const connect = connectOptions(opts, issues);
  checkNodeLocalOptions(opts, issues);
  if (issues.length > 0) throw new InputError(issues);
  // Every retry is said as it happens: a server that does not answer is not silence.
  const api = await connectClusterNode({
    ...connect,
    onRetry: (notice) => process.stderr.write(`evictd: ${notice.message}\n`),
  });
  // The kubelet's configuration, read once: the thresholds and (--stats cgroups) the cgroups' driver
  // and root come from the same object. Not read when --config and both cgroup flags say it all.
  const cgroups = opts.stats === "cgroups" ? await import("./open-kubelet-cgroups.js") : undefined;
  const configz =
    opts.config === undefined || cgroups?.cgroupsNeedConfigz(opts) === true
      ? await api.kubeletConfig()
      : undefined;
  const settings = await clusterEvictionSettingsOf(opts.config, configz, api.nodeName);
  for (const w of settings.warnings) process.stderr.write(terminalSafe(formatIssue(w)) + "\n");
  const local = cgroups?.openKubeletCgroups(opts, configz);
  let view;
  try {
    view = await explainClusterNode({
      api,
      settings,
      clock: systemClock,
      ...(local !== undefined ? { memory: local.memory } : {}),
    });
  } finally {
    local?.memory.close();
  }
  await writeStdout(opts.output === "json" ? JSON.stringify(view, null, 2) + "\n" : renderExplanation(view));
  return EXIT.ok;
}

function table(header: readonly string[], cells: readonly (readonly string[])[]): string {
  const rows = cells.map((r) => r.map(terminalSafe));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n") + "\n";
}

/**
 * The human form: conditions, signals against thresholds, the verdict, the ranking. Names and
 * messages come from the API server and the kubelet: printed with control characters escaped.
 */
export function renderExplanation(v: NodeExplanation): string {
  const out: string[] = [];
  const t = terminalSafe;
  out.push(`node ${t(v.node)} at ${v.time} (${t(v.source)}); filesystems: ${v.layout}\n\n`);
  const reported = new Map(v.kubeletConditions.map((c) => [c.type, c.status]));
  out.push(
    table(
      ["CONDITION", "KUBELET REPORTS", "THIS SAMPLE"],
      v.conditions.map((c) => [c.type, reported.get(c.type) ?? "-", c.status]),
    ),
  );
  out.push("\n");
  const rows: string[][] = [];
  for (const s of v.signals) {
    const available = s.available !== undefined ? `${s.available} of ${s.capacity ?? "?"}` : "not reported";
    if (s.thresholds.length === 0) rows.push([s.signal, available, "-", "-", "-"]);
    for (const t of s.thresholds)
      rows.push([
        s.signal,
        available,
        `${t.type} < ${thresholdText(s.signal, t)}`,
        t.type === "soft" ? t.gracePeriod : "-",
        t.state,
      ]);
  }
  out.push(table(["SIGNAL", "AVAILABLE", "THRESHOLD", "GRACE", "STATE"], rows));
  out.push("\n");
  const additions = v.signals.find((s) => s.signal === "memory.available")?.evictdAdditions;
  if (additions !== undefined) out.push(renderNodeMemoryViews(additions), "\n");
  if (v.verdict.wouldEvict.length > 0) {
    for (const e of v.verdict.wouldEvict)
      out.push(`would evict now: ${t(e.pod)} (${e.signal}): ${t(e.message.trim())}\n`);
  } else {
    out.push(
      `verdict: ${v.verdict.outcome}${v.verdict.actedOn !== null ? ` (acting on ${v.verdict.actedOn})` : ""}\n`,
    );
  }
  if (v.ranking !== null) {
    out.push(
      `\neviction order for ${v.ranking.signal}${v.ranking.next !== null ? `; next: ${t(v.ranking.next)}` : ""}\n`,
    );
    out.push(
      table(
        ["#", "POD", "WHY HERE"],
        v.ranking.order.map((r) => [String(r.place), r.pod, r.reason]),
      ),
    );
  }
  for (const s of v.skippedPods) out.push(`skipped ${t(s.pod)}: ${t(s.problem)}\n`);
  return out.join("");
}

/**
 * `memory.available` three ways, under the signal table: the kubelet's formula (what the signal
 * is), the kernel's MemAvailable and the working set with kernel memory, headed by the note that
 * they are evictd's additions.
 */
function renderNodeMemoryViews(a: NodeMemoryViewsView): string {
  const rows: string[][] = [
    ["kubelet's formula", a.kubelet.available, a.kubelet.workingSet, a.kubelet.formula],
  ];
  if (a.kernelAvailable !== undefined)
    rows.push(["kernel's MemAvailable", a.kernelAvailable.available, "-", a.kernelAvailable.formula]);
  const k = a.withKernelMemory;
  if (k !== undefined)
    rows.push([
      "with kernel memory",
      k.available,
      k.workingSet,
      `${k.formula}; kernel memory ${k.kernelMemory}`,
    ]);
  return (
    `memory.available three ways (${a.note}), of ${a.capacity}, read ${a.time}:\n` +
    table(["VIEW", "AVAILABLE", "WORKING SET", "HOW"], rows) +
    `from ${terminalSafe(a.source)}\n`
  );
}
