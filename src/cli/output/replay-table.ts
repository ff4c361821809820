/**
 * The human view of a replay: per step, each signal against its thresholds, the node conditions,
 * what was acted on, reclaim, evictions with their reasons, refusals, who is next in line, and
 * admission; then a summary of the whole run.
 */
import type { ReplayPlan, StepOutcome } from "../../app/replay/run-replay.js";
import { formatThresholdValue } from "../../app/replay/records.js";
import { formatRfc3339Ms } from "../../core/time/rfc3339.js";
import type { ScenarioHeader } from "../../app/replay/scenario.js";
import { formatDurationMs } from "../../core/time/duration.js";
import type { Signal, Threshold } from "../../core/model.js";
import { podQos } from "../../core/pod/qos.js";
import { formatQuantity, quantityFromInt } from "../../core/quantity.js";
import { SIGNALS } from "../../core/signals.js";
import { thresholdQuantity } from "../../core/engine/threshold-quantity.js";
import { terminalSafe } from "./terminal-text.js";
import { count } from "../../app/plural.js";

const dur = formatDurationMs;

function pad(s: string, n: number): string {
  return s.length >= n ? s + " " : s + " ".repeat(n - s.length);
}

function thresholdLabel(t: Threshold): string {
  const kind = t.gracePeriodMs === 0 ? "hard" : `soft ${dur(t.gracePeriodMs)}`;
  const from = t.derivedFrom !== undefined ? ` (copy of ${t.derivedFrom})` : "";
  return `<${formatThresholdValue(t.value)} ${kind}${from}`;
}

/** Where the table goes: a writer, or a buffer held until the end of the replay. */
export interface TextSink {
  write(s: string): void;
}

/** The lines that open the table: the run's size, layout and configuration. */
export function tableHeader(scenario: ScenarioHeader, plan: ReplayPlan, steps: number, pods: number): string {
  const t = plan.thresholds.filter((x) => x.operator !== "");
  return (
    `evictd replay: ${count(steps, "step")}, ${count(pods, "pod")}, filesystems: ${plan.layout}\n` +
    `thresholds: ${t.map((x) => `${x.signal}${thresholdLabel(x)}`).join(", ") || "none"}\n` +
    `max pod grace: ${scenario.config.maxPodGracePeriodSeconds}s, pressure transition: ${dur(scenario.config.pressureTransitionPeriodMs)}\n`
  );
}

/**
 * The table's body, step by step; its header (tableHeader) needs the number of steps and pods, so
 * it is written once they are all known.
 */
export class TableWriter {
  private readonly out: TextSink;
  private readonly evicted: { at: string; pod: string; signal: string }[] = [];
  private steps = 0;

  constructor(out: TextSink) {
    this.out = out;
  }

  step(o: StepOutcome, plan: ReplayPlan): void {
    this.steps++;
    const r = o.report;
    // Pod names and messages come from the scenario, which may name pods as it likes: every line is
    // printed with its control characters escaped.
    const w = (s: string): void => this.out.write(terminalSafe(s) + "\n");
    w("");
    w(`── step ${o.step.index} at ${dur(o.step.atMs)} (${formatRfc3339Ms(o.time)}) ${"─".repeat(30)}`);
    if (r.statsUnavailable)
      w("  no summary: the run is skipped, as when the kubelet fails to get summary stats");
    const signals = new Set<Signal>([...r.observations.keys()]);
    w(`  ${pad("signal", 30)}${pad("available", 14)}${pad("capacity", 14)}${pad("threshold", 30)}status`);
    for (const signal of signals) {
      const obs = r.observations.get(signal);
      if (obs === undefined) continue;
      const fmt = SIGNALS[signal].unit === "bytes" ? "BinarySI" : "DecimalSI";
      const ts = plan.thresholds.filter(
        (t) => t.signal === signal && t.operator !== "" && t.value !== undefined,
      );
      const first = `  ${pad(signal, 30)}${pad(formatQuantity(quantityFromInt(obs.available, fmt)), 14)}${pad(formatQuantity(quantityFromInt(obs.capacity, fmt)), 14)}`;
      if (ts.length === 0) {
        w(`${first}${pad("-", 30)}no threshold`);
        continue;
      }
      ts.forEach((t, i) => {
        const lead = i === 0 ? first : " ".repeat(60);
        const q = t.value === undefined ? "" : formatQuantity(thresholdQuantity(t.value, obs.capacity));
        w(`${lead}${pad(`${thresholdLabel(t)} = ${q}`, 30)}${this.status(t, o)}`);
      });
    }
    w(`  conditions: ${r.conditions.length === 0 ? "none" : r.conditions.join(", ")}`);
    if (r.staleStats.length > 0) {
      w(
        `  stats not updated since the last run for ${r.staleStats.map((t) => t.signal).join(", ")}: not acting on the same sample twice`,
      );
    }
    if (r.actedOn !== undefined) w(`  acting on: ${r.actedOn.signal}${thresholdLabel(r.actedOn)}`);
    if (r.reclaim !== undefined) {
      const errs = r.reclaim.errors
        ? ` (errors: ${Object.entries(r.reclaim.errors)
            .map(([k, v]) => `${k}: ${v}`)
            .join("; ")})`
        : "";
      w(
        `  node-level reclaim: ${r.reclaim.ran.join(" then ")} → ${r.reclaim.sufficient ? "enough, no pod evicted" : "not enough"}${errs}`,
      );
    }
    r.evictions.forEach((e, i) => {
      const kill = o.kills[i];
      this.evicted.push({ at: dur(o.step.atMs), pod: e.pod.key, signal: e.signal });
      w(
        `  EVICTED ${e.pod.key} (${podQos(e.pod)}, priority ${e.pod.priority}) for ${e.signal}, grace ${e.gracePeriodSeconds}s requested, ${kill?.effectiveGracePeriodSeconds ?? e.gracePeriodSeconds}s effective${kill?.killFailed ? ", KILL FAILED (still counts)" : ""}`,
      );
      w(`    ${e.message.trimEnd()}`);
    });
    for (const f of r.refused) w(`  skipped ${f.pod.key}: ${f.reason} pods are never evicted`);
    if (r.ranking !== undefined) {
      const rest = r.ranking.filter((p) => !r.evictions.some((e) => e.pod.uid === p.uid));
      if (rest.length > 0)
        w(
          `  next in line: ${rest
            .slice(0, 5)
            .map((p) => p.key)
            .join(", ")}${rest.length > 5 ? `, … (${rest.length} in all)` : ""}`,
        );
    }
    for (const a of o.admission) {
      w(
        `  admission ${a.pod.key}: ${a.result.admit ? "admitted" : `rejected: ${a.result.message.trimEnd()}`}`,
      );
    }
    w(`  → ${r.outcome}`);
  }

  private status(t: Threshold, o: StepOutcome): string {
    const r = o.report;
    const waiting = r.awaitingGrace.find((a) => a.threshold.id === t.id);
    if (waiting !== undefined) {
      const left = t.gracePeriodMs - (r.now - waiting.since);
      return `MET, grace ${dur(Math.max(0, left))} left`;
    }
    if (r.thresholdsMet.some((m) => m.id === t.id)) return "MET";
    return "ok";
  }

  end(): void {
    this.out.write(`\n${count(this.steps, "step")}, ${count(this.evicted.length, "eviction")}\n`);
    for (const e of this.evicted) this.out.write(`  ${e.at}  ${terminalSafe(e.pod)}  (${e.signal})\n`);
  }
}
