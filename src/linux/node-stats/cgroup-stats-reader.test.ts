/** The lean cgroup readers over fake cgroupfs directories, both interfaces, including the failures callers branch on. */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AdapterError } from "../../errors.js";
import type { CgroupRef } from "../cgroups/cgroup-driver.js";
import { readPidsCurrent, readWorkingSet, type CgroupLocator } from "./cgroup-stats-reader.js";

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "evictd-cgread-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

const ref: CgroupRef = { kind: "pod", path: "n/pods/podx" };

function locator(api: "v1" | "v2", base: string, pids: boolean): CgroupLocator {
  return {
    api,
    directories: (c) => ({
      memory: join(base, c.path),
      pids: pids ? join(base, "pids", c.path) : undefined,
      unified: undefined,
    }),
  };
}

async function files(base: string, entries: Record<string, string>): Promise<void> {
  await mkdir(join(base, ref.path), { recursive: true });
  for (const [name, text] of Object.entries(entries)) await writeFile(join(base, ref.path, name), text);
}

describe("readWorkingSet", () => {
  const cases = [
    {
      name: "v1, limited: total_inactive_file (hierarchical), not inactive_file",
      api: "v1" as const,
      entries: {
        "memory.usage_in_bytes": "104857600\n",
        "memory.stat": "cache 5\ninactive_file 999\ntotal_cache 5\ntotal_inactive_file 4194304\n",
        "memory.limit_in_bytes": "268435456\n",
      },
      want: { usageBytes: 104857600n, workingSetBytes: 100663296n, limitBytes: 268435456n },
    },
    {
      name: "v1, unlimited",
      api: "v1" as const,
      entries: {
        "memory.usage_in_bytes": "4096\n",
        "memory.stat": "total_inactive_file 0\n",
        "memory.limit_in_bytes": "9223372036854771712\n",
      },
      want: { usageBytes: 4096n, workingSetBytes: 4096n, limitBytes: undefined },
    },
    {
      name: "v2, unlimited",
      api: "v2" as const,
      entries: {
        "memory.current": "52428800\n",
        "memory.stat": "anon 1\ninactive_file 2097152\nactive_file 3\n",
        "memory.max": "max\n",
      },
      want: { usageBytes: 52428800n, workingSetBytes: 50331648n, limitBytes: undefined },
    },
    {
      name: "v2, inactive_file above usage: working set clamped at 0",
      api: "v2" as const,
      entries: { "memory.current": "1000\n", "memory.stat": "inactive_file 5000\n", "memory.max": "8192\n" },
      want: { usageBytes: 1000n, workingSetBytes: 0n, limitBytes: 8192n },
    },
  ];
  cases.forEach((c, i) => {
    test(c.name, async () => {
      const base = join(root, `case${i}`);
      await files(base, c.entries);
      assert.deepEqual(readWorkingSet(locator(c.api, base, false), ref), c.want);
    });
  });

  test("a vanished cgroup is cgroup-not-found", () => {
    assert.throws(
      () => readWorkingSet(locator("v2", join(root, "nothing"), false), ref),
      (e: unknown) => e instanceof AdapterError && e.code === "cgroup-not-found",
    );
  });

  test("a memory.stat without inactive_file is cgroup-parse", async () => {
    const base = join(root, "bad");
    await files(base, { "memory.current": "1\n", "memory.stat": "anon 1\n", "memory.max": "max\n" });
    assert.throws(
      () => readWorkingSet(locator("v2", base, false), ref),
      (e: unknown) => e instanceof AdapterError && e.code === "cgroup-parse",
    );
  });
});

describe("readPidsCurrent", () => {
  test("reads pids.current; undefined without the pids controller", async () => {
    const base = join(root, "pids-case");
    await mkdir(join(base, "pids", ref.path), { recursive: true });
    await writeFile(join(base, "pids", ref.path, "pids.current"), "17\n");
    assert.equal(readPidsCurrent(locator("v1", base, true), ref), 17);
    assert.equal(readPidsCurrent(locator("v1", base, false), ref), undefined);
  });
});
