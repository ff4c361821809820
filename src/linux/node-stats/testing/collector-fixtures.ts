/**
 * What the collector's tests share: a clock they move by hand, a fake cgroupfs in a temporary
 * directory, and the engine's own validator and decoder as the check that a Summary is readable.
 */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { NodeSummary } from "../../../core/model.js";
import { IssueList } from "../../../core/issues.js";
import { decodeSummary } from "../../../core/summary/decode-summary.js";
import { validateSummary } from "../../../core/summary/validate-summary.js";
import { AdapterError } from "../../../errors.js";
import type { CgroupDirectories, CgroupRef } from "../../cgroups/cgroup-driver.js";
import type { CgroupStatsReader } from "../collector-cgroups.js";
import type { RawSummaryJson } from "../summary-json.js";

/** A clock the test moves by hand. */
export class ManualClock {
  ns = 1_782_468_875_000_000_000n;
  nowNs(): bigint {
    return this.ns;
  }
  advanceMs(ms: number): void {
    this.ns += BigInt(ms) * 1_000_000n;
  }
}

/**
 * A cgroup reader over a fake cgroupfs in a temp directory: memory files written per interface
 * (v1 or v2) as the kernel lays them out, pids from a table. A cgroup that was never written is a
 * vanished one.
 */
export class FakeCgroups implements CgroupStatsReader {
  readonly api: "v1" | "v2";
  readonly root: string;
  hasPids = true;
  /** What `procs` lists: cgroup path → number of processes. */
  readonly procsOf = new Map<string, number>();

  constructor(api: "v1" | "v2", root: string) {
    this.api = api;
    this.root = root;
  }

  async setMemory(path: string, usage: bigint, inactive: bigint, limit?: bigint): Promise<void> {
    const dir = join(this.root, path);
    await mkdir(dir, { recursive: true });
    const v1 = this.api === "v1";
    await writeFile(join(dir, v1 ? "memory.usage_in_bytes" : "memory.current"), `${usage}\n`);
    const stat = v1
      ? `cache 0\ninactive_file 1\ntotal_cache 0\ntotal_inactive_file ${inactive}\n`
      : `anon 0\ninactive_file ${inactive}\nactive_file 0\n`;
    await writeFile(join(dir, "memory.stat"), stat);
    const unlimited = v1 ? "9223372036854771712" : "max";
    await writeFile(join(dir, v1 ? "memory.limit_in_bytes" : "memory.max"), `${limit ?? unlimited}\n`);
  }

  /** Writes `pids.current` (v1 keeps it in a hierarchy of its own). */
  async setPids(path: string, current: number): Promise<void> {
    const dir = this.#pidsDir(path);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "pids.current"), `${current}\n`);
  }

  #pidsDir(path: string): string {
    return this.api === "v1" ? join(this.root, "pids", path) : join(this.root, path);
  }

  directories(cgroup: CgroupRef): CgroupDirectories {
    return {
      memory: join(this.root, cgroup.path),
      pids: this.hasPids ? this.#pidsDir(cgroup.path) : undefined,
      unified: undefined,
    };
  }
  procs(cgroup: CgroupRef): Promise<number[]> {
    const n = this.procsOf.get(cgroup.path);
    return n === undefined
      ? Promise.reject(gone(cgroup))
      : Promise.resolve(Array.from({ length: n }, (_, i) => 1000 + i));
  }
}

function gone(cgroup: CgroupRef): AdapterError {
  return new AdapterError(
    "cgroup-not-found",
    `cannot read ${cgroup.path}: no such file or directory (ENOENT)`,
  );
}

/** Decodes with the engine's validator and decoder; fails the test on any issue. */
export function decodeChecked(raw: RawSummaryJson): NodeSummary {
  const issues = new IssueList();
  validateSummary(raw, "summary", issues);
  assert.deepEqual(issues.items, []);
  const summary = decodeSummary(raw, "summary", undefined, issues);
  assert.deepEqual(issues.items, []);
  assert.ok(summary !== undefined);
  return summary;
}
