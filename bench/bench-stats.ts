/**
 * What every benchmark reports: order statistics of repeated timings, the machine they ran on, a
 * plain-text table for people and a JSON results file for the record.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname } from "node:path";

/** The q-quantile (0..1) of `values` by linear interpolation between order statistics. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] ?? Number.NaN;
  const b = sorted[hi] ?? Number.NaN;
  return a + (b - a) * (pos - lo);
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

export interface MachineInfo {
  readonly node: string;
  readonly v8: string;
  readonly platform: string;
  readonly arch: string;
  readonly cpuModel: string;
  readonly cpus: number;
  readonly memoryGiB: number;
  readonly date: string;
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    node: process.version,
    v8: process.versions.v8,
    platform: process.platform,
    arch: process.arch,
    cpuModel: list[0]?.model.trim() ?? "unknown",
    cpus: list.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    date: new Date().toISOString(),
  };
}

export function describeMachine(m: MachineInfo): string {
  return `node ${m.node} (V8 ${m.v8}), ${m.platform}/${m.arch}, ${m.cpuModel} × ${m.cpus}, ${m.memoryGiB} GiB, ${m.date}`;
}

/** A right-aligned text table (the first column left-aligned). */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** `1234567` → `1,234,567`; fractions kept to `digits`. */
export function num(x: number, digits = 0): string {
  return x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function writeResults(file: string, results: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(results, null, 2) + "\n");
}

/** Milliseconds since an arbitrary origin, high resolution. */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
