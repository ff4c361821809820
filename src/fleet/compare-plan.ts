/**
 * A comparison past one machine: `plan.json` lists every trace (with the SHA-256 of its bytes) and
 * every configuration (self-contained: its KubeletConfiguration document and settings, and their
 * SHA-256), and the shards, numbered from 0 (a Kubernetes Indexed Job's `$JOB_COMPLETION_INDEX`):
 * one per trace × configuration, or, grouped by trace, one per trace with all its configurations
 * (the trace read and decoded once, which is most of a shard's cost). A shard's id hashes what decides its cell (trace and configuration
 * contents, what-if, evictd's version), so a rerun skips shards whose result is already there, and a
 * changed trace is noticed rather than replayed under a stale plan. Each shard writes one result
 * file; the merge reads them all and produces the comparison the single-machine run prints.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { CellResult } from "../app/compare/cell-result.js";
import { OBJECTIVES, type Objective } from "../app/compare/fleet-comparison.js";
import type { ConfigSetting } from "../core/config/config-settings.js";
import type { Issue } from "../core/issues.js";
import { isRawObject } from "../core/raw/raw-object.js";
import type { ConfigVariant, VariantBase } from "../formats/load-config-variants.js";
import { writeFileAtomic } from "../formats/write-file-atomic.js";
import { AdapterError, errnoCode } from "../errors.js";

export const PLAN_KIND = "evictd-compare-plan";
export const SHARD_KIND = "evictd-compare-shard";

export interface PlanTrace {
  readonly path: string;
  readonly sha256: string;
  readonly bytes: number;
}

export interface PlanConfig {
  readonly name: string;
  readonly base: VariantBase;
  readonly settings: readonly ConfigSetting[];
  readonly sha256: string;
}

export interface PlanShard {
  readonly index: number;
  readonly trace: number;
  /** The configurations it replays the trace under (one, unless grouped by trace). */
  readonly configs: readonly number[];
  readonly id: string;
}

/** How a plan cuts the work: a shard per trace × configuration, or per trace. */
export type ShardGrouping = "cell" | "trace";
export const SHARD_GROUPINGS: readonly ShardGrouping[] = ["cell", "trace"];

export interface ComparePlan {
  readonly kind: typeof PLAN_KIND;
  readonly version: 1;
  readonly evictd: string;
  readonly objective: Objective;
  readonly whatIf: boolean;
  readonly traces: readonly PlanTrace[];
  readonly configs: readonly PlanConfig[];
  readonly shards: readonly PlanShard[];
}

export interface ShardResult {
  readonly kind: typeof SHARD_KIND;
  readonly version: 1;
  readonly index: number;
  readonly id: string;
  /** One per configuration of the shard, in its order. */
  readonly cells: readonly CellResult[];
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** The SHA-256 and size of a file's bytes, read as a stream. */
export async function fileDigest(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest("hex"), bytes };
}

/** JSON with object keys sorted: the same value always gives the same text (and hash). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    isRawObject(v) ? Object.fromEntries(Object.entries(v).sort((a, b) => (a[0] < b[0] ? -1 : 1))) : v,
  );
}

/** The plan of `traces` × `variants`. */
export async function makePlan(
  traces: readonly string[],
  variants: readonly ConfigVariant[],
  options: {
    readonly objective: Objective;
    readonly whatIf: boolean;
    readonly evictd: string;
    readonly group: ShardGrouping;
  },
): Promise<ComparePlan> {
  const planTraces: PlanTrace[] = [];
  for (const path of traces) planTraces.push({ path, ...(await fileDigest(path)) });
  const configs: PlanConfig[] = variants.map((v) => {
    const base: VariantBase =
      v.base.kind === "file" ? { kind: "file", file: v.base.file, document: v.base.document } : v.base;
    const content = {
      base: base.kind === "file" ? { kind: "file", document: base.document } : base,
      settings: v.settings,
    };
    return { name: v.name, base, settings: v.settings, sha256: sha256(canonical(content)) };
  });
  const shards: PlanShard[] = [];
  const mode = options.whatIf ? "what-if" : "open-loop";
  const groups: number[][] =
    options.group === "trace" ? [configs.map((_, c) => c)] : configs.map((_, c) => [c]);
  for (const [t, trace] of planTraces.entries())
    for (const group of groups)
      shards.push({
        index: shards.length,
        trace: t,
        configs: group,
        id: sha256(
          `${trace.sha256} ${group.map((c) => configs[c]?.sha256 ?? "").join(",")} ${mode} ${options.evictd}`,
        ),
      });
  return {
    kind: PLAN_KIND,
    version: 1,
    evictd: options.evictd,
    objective: options.objective,
    whatIf: options.whatIf,
    traces: planTraces,
    configs,
    shards,
  };
}

const problem = (file: string, path: string, message: string): Issue => ({
  severity: "error",
  path,
  code: "plan",
  message,
  file,
});

/** Reads and checks a plan file; every problem named. */
export async function readPlan(
  file: string,
): Promise<{ ok: true; plan: ComparePlan } | { ok: false; issues: Issue[] }> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    return {
      ok: false,
      issues: [
        problem(
          file,
          "plan",
          `cannot read the plan: ${error instanceof Error ? error.message : String(error)}`,
        ),
      ],
    };
  }
  const issues: Issue[] = [];
  if (!isRawObject(value) || value["kind"] !== PLAN_KIND)
    return {
      ok: false,
      issues: [
        problem(
          file,
          "kind",
          `not an evictd comparison plan (kind ${JSON.stringify(isRawObject(value) ? value["kind"] : value)})`,
        ),
      ],
    };
  if (value["version"] !== 1)
    issues.push(problem(file, "version", `plan version ${JSON.stringify(value["version"])} is not 1`));
  if (!OBJECTIVES.includes(value["objective"] as Objective))
    issues.push(problem(file, "objective", `unknown objective ${JSON.stringify(value["objective"])}`));
  for (const field of ["traces", "configs", "shards"])
    if (!Array.isArray(value[field])) issues.push(problem(file, field, "expected a list"));
  if (issues.length > 0) return { ok: false, issues };
  const plan = value as unknown as ComparePlan;
  plan.shards.forEach((s, i) => {
    if (
      s.index !== i ||
      plan.traces[s.trace] === undefined ||
      !Array.isArray(s.configs) ||
      s.configs.length === 0 ||
      s.configs.some((c: unknown) => typeof c !== "number" || plan.configs[c] === undefined)
    )
      issues.push(problem(file, `shards[${i}]`, "names no trace or configuration of the plan"));
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, plan };
}

/** Writes `data` to `file` whole, or throws AdapterError (exit 3: worth a retry) naming it. */
export async function writeOutput(file: string, data: string, what: string): Promise<void> {
  try {
    await writeFileAtomic(file, data);
  } catch (error) {
    throw new AdapterError(
      "output-unwritable",
      `cannot write ${what} ${file}: ${errnoCode(error) ?? String(error)}`,
      {
        cause: error,
        hint: "check that the directory exists, is writable and has room",
      },
    );
  }
}

export async function writePlan(file: string, plan: ComparePlan): Promise<void> {
  await writeOutput(file, `${JSON.stringify(plan, null, 1)}\n`, "the plan");
}

/** The result file of shard `index` in `dir`. */
export const shardResultFile = (dir: string, index: number): string => join(dir, `shard-${index}.json`);

export async function writeShardResult(dir: string, result: ShardResult): Promise<void> {
  await writeOutput(shardResultFile(dir, result.index), `${JSON.stringify(result)}\n`, "the shard's result");
}

/** Shard `index`'s result in `dir`, when there is one (undefined when missing or unreadable). */
export async function readShardResult(dir: string, index: number): Promise<ShardResult | undefined> {
  try {
    const value: unknown = JSON.parse(await readFile(shardResultFile(dir, index), "utf8"));
    if (!isRawObject(value) || value["kind"] !== SHARD_KIND || value["index"] !== index) return undefined;
    return value as unknown as ShardResult;
  } catch {
    return undefined;
  }
}

/** The variant a plan's configuration is (its configuration built again from its document). */
export function planVariant(config: PlanConfig): ConfigVariant {
  return { name: config.name, base: config.base, settings: config.settings };
}
