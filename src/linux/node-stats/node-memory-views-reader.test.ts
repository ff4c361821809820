/**
 * The node-memory views read from cgroup trees laid out with real kernel files
 * (test/fixtures/cgroup-memory, see its SOURCES.md): the v2 root (a kubelet's node), the v1 root
 * with and without a kmem file, and a node that is a cgroup of its own (`evictd run`'s) on v2 and
 * v1. Every expected figure is worked out by hand from the files' numbers.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { AdapterError } from "../../errors.js";
import { REPO_ROOT } from "../../../test/support/repo-paths.js";
import { readNodeMemoryViews } from "./node-memory-views-reader.js";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "cgroup-memory");
const scratch = mkdtempSync(join(tmpdir(), "evictd-memory-views-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

let trees = 0;
/** A directory holding `files` (name → fixture file name, or `=text` for literal text). */
function tree(files: Record<string, string>): string {
  const dir = join(scratch, String(trees++));
  mkdirSync(join(dir, "proc"), { recursive: true });
  for (const [name, from] of Object.entries(files)) {
    if (from.startsWith("=")) writeFileSync(join(dir, name), from.slice(1));
    else copyFileSync(join(FIXTURES, from), join(dir, name));
  }
  return dir;
}

const AT = 1_767_225_600_000;
const now = (): number => AT;

describe("readNodeMemoryViews", () => {
  test("cgroup v2 root: anon + file as the kubelet, MemAvailable, kernel + sock added", () => {
    const dir = tree({ "memory.stat": "v2-root-memory.stat", "proc/meminfo": "v2-meminfo" });
    const reading = readNodeMemoryViews(
      { api: "v2", dir, isRoot: true, describe: "the root cgroup" },
      { procRoot: join(dir, "proc"), now },
    );
    assert.equal(reading.at, AT);
    assert.equal(reading.source, `the root cgroup's ${dir}/memory.stat and ${dir}/proc/meminfo`);
    // MemTotal 3055144 kB = 3128467456, MemAvailable 2873880 kB = 2942853120; anon 16465920 +
    // file 47403008 − inactive_file 42311680 = 21557248; + kernel 1650688 + sock 0 = 23207936.
    assert.deepEqual(reading.views, {
      capacityBytes: 3128467456n,
      kubelet: { usageFrom: "anon + file", workingSetBytes: 21557248n, availableBytes: 3106910208n },
      kernelAvailable: { availableBytes: 2942853120n },
      withKernelMemory: {
        kernelMemoryBytes: 1650688n,
        kernelMemoryFrom: "kernel + sock",
        alreadyInKubeletFigure: false,
        workingSetBytes: 23207936n,
        availableBytes: 3105259520n,
      },
    });
  });

  test("cgroup v1 root: usage_in_bytes − total_inactive_file, kmem added", () => {
    const files = {
      "memory.usage_in_bytes": "v1-root-memory.usage_in_bytes",
      "memory.stat": "v1-root-memory.stat",
      "memory.kmem.usage_in_bytes": "v1-root-memory.kmem.usage_in_bytes",
      "proc/meminfo": "v1-meminfo",
    };
    const dir = tree(files);
    const reading = readNodeMemoryViews(
      { api: "v1", dir, isRoot: true, describe: "the root cgroup" },
      { procRoot: join(dir, "proc"), now },
    );
    // MemTotal 24683652 kB = 25276059648, MemAvailable 23626300 kB = 24193331200; usage 1369546752
    // − total_inactive_file 473075712 = 896471040; + kmem 149094400 = 1045565440.
    assert.deepEqual(reading.views, {
      capacityBytes: 25276059648n,
      kubelet: {
        usageFrom: "memory.usage_in_bytes",
        workingSetBytes: 896471040n,
        availableBytes: 24379588608n,
      },
      kernelAvailable: { availableBytes: 24193331200n },
      withKernelMemory: {
        kernelMemoryBytes: 149094400n,
        kernelMemoryFrom: "memory.kmem.usage_in_bytes",
        alreadyInKubeletFigure: false,
        workingSetBytes: 1045565440n,
        availableBytes: 24230494208n,
      },
    });
    assert.match(reading.source, /memory\.kmem\.usage_in_bytes and .*\/proc\/meminfo$/);
  });

  test("cgroup v1 without a kmem file: no kernel-memory view, nothing made up", () => {
    const dir = tree({
      "memory.usage_in_bytes": "v1-root-memory.usage_in_bytes",
      "memory.stat": "v1-root-memory.stat",
      "proc/meminfo": "v1-meminfo",
    });
    const { views } = readNodeMemoryViews(
      { api: "v1", dir, isRoot: true, describe: "the root cgroup" },
      { procRoot: join(dir, "proc"), now },
    );
    assert.equal(views.withKernelMemory, undefined);
    assert.equal(views.kubelet.availableBytes, 24379588608n);
    assert.equal(views.kernelAvailable?.availableBytes, 24193331200n);
  });

  test("a node cgroup of its own (v2): memory.current counts kernel memory already; its limit is the capacity", () => {
    const dir = tree({
      "memory.current": "v2-node-memory.current",
      "memory.stat": "v2-node-memory.stat",
      "memory.max": "=1073741824\n",
      "proc/meminfo": "v2-meminfo",
    });
    const { views } = readNodeMemoryViews(
      { api: "v2", dir, isRoot: false, capacityBytes: 2147483648n, describe: "evictd's node cgroup" },
      { procRoot: join(dir, "proc"), now },
    );
    // memory.current 60678144 − inactive_file 41029632 = 19648512; 1073741824 − 19648512 = 1054093312.
    const kubelet = { usageFrom: "memory.current", workingSetBytes: 19648512n, availableBytes: 1054093312n };
    assert.deepEqual(views, {
      capacityBytes: 1073741824n,
      kubelet,
      kernelAvailable: { availableBytes: 2942853120n },
      withKernelMemory: {
        kernelMemoryBytes: 1654784n,
        kernelMemoryFrom: "kernel + sock",
        alreadyInKubeletFigure: true,
        workingSetBytes: 19648512n,
        availableBytes: 1054093312n,
      },
    });
  });

  test("a node cgroup without a limit: the capacity given, else MemTotal", () => {
    const files = {
      "memory.current": "v2-node-memory.current",
      "memory.stat": "v2-node-memory.stat",
      "memory.max": "=max\n",
      "proc/meminfo": "v2-meminfo",
    };
    const dir = tree(files);
    const target = { api: "v2", dir, isRoot: false, describe: "the node cgroup" } as const;
    const options = { procRoot: join(dir, "proc"), now };
    const given = readNodeMemoryViews({ ...target, capacityBytes: 2147483648n }, options);
    assert.equal(given.views.capacityBytes, 2147483648n);
    assert.equal(given.views.kubelet.availableBytes, 2147483648n - 19648512n);
    assert.equal(readNodeMemoryViews(target, options).views.capacityBytes, 3128467456n);
  });

  test("a v1 node cgroup: its kmem is shown as already counted; v1's unlimited is no limit", () => {
    const dir = tree({
      "memory.usage_in_bytes": "=104857600\n",
      "memory.stat": "=inactive_file 1\ntotal_inactive_file 4194304\n",
      "memory.kmem.usage_in_bytes": "=2097152\n",
      "memory.limit_in_bytes": "=9223372036854771712\n",
      "proc/meminfo": "v1-meminfo",
    });
    const { views } = readNodeMemoryViews(
      { api: "v1", dir, isRoot: false, capacityBytes: 536870912n, describe: "evictd's node cgroup" },
      { procRoot: join(dir, "proc"), now },
    );
    // 104857600 − 4194304 (the hierarchical total, as cAdvisor) = 100663296; 536870912 − 100663296.
    assert.deepEqual(views.kubelet, {
      usageFrom: "memory.usage_in_bytes",
      workingSetBytes: 100663296n,
      availableBytes: 436207616n,
    });
    assert.deepEqual(views.withKernelMemory, {
      kernelMemoryBytes: 2097152n,
      kernelMemoryFrom: "memory.kmem.usage_in_bytes",
      alreadyInKubeletFigure: true,
      workingSetBytes: 100663296n,
      availableBytes: 436207616n,
    });
  });

  test("a file it needs is missing or malformed: an AdapterError naming it", () => {
    const noStat = tree({ "proc/meminfo": "v2-meminfo" });
    assert.throws(
      () =>
        readNodeMemoryViews(
          { api: "v2", dir: noStat, isRoot: true, describe: "the root cgroup" },
          { procRoot: join(noStat, "proc") },
        ),
      (e: unknown) => e instanceof AdapterError && e.message.includes(`${noStat}/memory.stat`),
    );
    const noAnon = tree({ "memory.stat": "=file 1\ninactive_file 1\n", "proc/meminfo": "v2-meminfo" });
    assert.throws(
      () =>
        readNodeMemoryViews(
          { api: "v2", dir: noAnon, isRoot: true, describe: "the root cgroup" },
          { procRoot: join(noAnon, "proc") },
        ),
      (e: unknown) => e instanceof AdapterError && /no anon, file or inactive_file line/.test(e.message),
    );
  });
});
