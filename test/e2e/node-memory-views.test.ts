/**
 * The node's memory three ways (the kubelet's formula, the kernel's MemAvailable, a working set with
 * kernel memory) against this machine's own files: the root cgroup's memory files and
 * /proc/meminfo, parsed and worked out here by hand, apart from evictd's parsers and formulas.
 * On cgroup v2 (the guest of scripts/v2-guest.sh, where `npm test` runs this file again) that is
 * the root's memory.stat, `anon + file` as runc takes it and `kernel + sock`; on cgroup v1 (this
 * development machine) the root's memory.usage_in_bytes, total_inactive_file and
 * memory.kmem.usage_in_bytes. Then `evictd run`'s own node cgroup through the stats collector,
 * where usage counts kernel memory already.
 *
 * A load in a cgroup of the node (8000 files on a tmpfs: their inodes and dentries are kernel
 * memory charged to it, and so to the root) makes the kernel-memory figures large enough to tell
 * apart from the kubelet's.
 *
 * Two ways of comparing: on the very texts evictd read (a recording reader), every figure must be
 * equal; on a live read, each figure evictd returns must lie within what this test read just
 * before and just after, give or take TOLERANCE. The kernel's counters move between any two reads
 * (this process's own allocations, page cache of the files read, per-CPU counter batches folded in
 * late, the root's memory.stat refreshed by the kernel at most every few seconds), and not
 * monotonically, so a figure can leave the before/after range and come back within one read; 2 MiB
 * is far above what an idle machine moves in the milliseconds of a read, far below the figures'
 * differences (tens of MiB of inactive_file; the load's kernel memory). A busy machine is waited
 * out: the live comparison is made at the first of up to 30 looks whose before and after agree
 * within the tolerance, else on the quietest, with the tolerance widened by how far that look moved.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, rmdirSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { NodeMemoryViews } from "../../src/core/memory/node-memory-views.js";
import type { CgroupDriver, NodeCgroups } from "../../src/linux/cgroups/cgroup-driver.js";
import { createCgroupDriver } from "../../src/linux/cgroups/create-cgroup-driver.js";
import { detectOwnCgroups } from "../../src/linux/cgroups/detect-cgroups.js";
import { spawnInCgroups } from "../../src/linux/cgroups/spawn-in-cgroup.js";
import { KubeletCgroupTree } from "../../src/linux/kubelet-cgroups/kubelet-cgroup-tree.js";
import { KubeletMemoryReader } from "../../src/linux/kubelet-cgroups/kubelet-memory-reader.js";
import { readNodeMemoryViews } from "../../src/linux/node-stats/node-memory-views-reader.js";
import { LinuxSummaryCollector } from "../../src/linux/node-stats/summary-collector.js";
import { scaled, sleep } from "../harness/node-harness.js";

const MiB = 1024n * 1024n;
const TOLERANCE = 2n * MiB;
const LOOKS = 30;
const LOAD_FILES = 8000;

const detection = process.platform === "linux" ? await detectOwnCgroups() : undefined;
const choice = detection === undefined ? undefined : createCgroupDriver(detection);
const memory = detection?.memory;
const skip =
  detection === undefined || choice === undefined
    ? "not Linux"
    : memory === undefined
      ? "no memory cgroup hierarchy mounted"
      : !choice.ok
        ? choice.reason
        : process.getuid?.() !== 0
          ? "making cgroups needs root"
          : false;
if (skip !== false) console.error(`# node memory views tests skipped: ${skip}`);

// ---------------------------------------------------------------------------------------------
// By hand: the files' text parsed here, the figures worked out here.

/** `name value` lines (memory.stat). */
function statOf(text: string): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const line of text.split("\n")) {
    const [name, value] = line.split(" ");
    if (name && value) out.set(name, BigInt(value));
  }
  return out;
}

/** A /proc/meminfo line in bytes (`kB` is KiB); undefined when the kernel does not write it. */
function meminfoLine(text: string, name: string): bigint | undefined {
  const m = new RegExp(`^${name.replace(/[()]/g, "\\$&")}:\\s+(\\d+) kB$`, "m").exec(text);
  return m?.[1] === undefined ? undefined : BigInt(m[1]) * 1024n;
}

function field(stat: Map<string, bigint>, name: string): bigint {
  const v = stat.get(name);
  assert.ok(v !== undefined, `memory.stat has ${name}`);
  return v;
}

/** The figures every comparison looks at, in bytes (undefined: no such view). */
interface Figures {
  readonly capacity: bigint;
  readonly kubeletWorkingSet: bigint;
  readonly kubeletAvailable: bigint;
  readonly memAvailable: bigint | undefined;
  readonly kernelMemory: bigint | undefined;
  readonly withKernelWorkingSet: bigint | undefined;
  readonly withKernelAvailable: bigint | undefined;
}

const floor0 = (n: bigint): bigint => (n < 0n ? 0n : n);

function figures(
  capacity: bigint,
  workingSet: bigint,
  memAvailable: bigint | undefined,
  kernel: bigint | undefined,
  kernelInUsage: boolean,
): Figures {
  const withKernel = kernel === undefined ? undefined : workingSet + (kernelInUsage ? 0n : kernel);
  return {
    capacity,
    kubeletWorkingSet: workingSet,
    kubeletAvailable: floor0(capacity - workingSet),
    memAvailable,
    kernelMemory: kernel,
    withKernelWorkingSet: withKernel,
    withKernelAvailable: withKernel === undefined ? undefined : floor0(capacity - withKernel),
  };
}

/** v2 kernel memory: `kernel` + `sock`; the guest's kernel (6.1) writes `kernel` (5.18 on). */
function v2Kernel(stat: Map<string, bigint>): bigint {
  return field(stat, "kernel") + (stat.get("sock") ?? 0n);
}

type Read = (file: string) => string | undefined;

/** The root cgroup as the kubelet measures it, from the files `read` gives. */
function rootByHand(api: "v1" | "v2", dir: string, read: Read): Figures {
  const meminfo = read("/proc/meminfo") ?? "";
  const memTotal = meminfoLine(meminfo, "MemTotal");
  assert.ok(memTotal !== undefined);
  const memAvailable = meminfoLine(meminfo, "MemAvailable");
  const stat = statOf(read(path.join(dir, "memory.stat")) ?? "");
  if (api === "v2") {
    // runc: usage = anon + file; working set = usage − inactive_file.
    const ws = floor0(field(stat, "anon") + field(stat, "file") - field(stat, "inactive_file"));
    return figures(memTotal, ws, memAvailable, v2Kernel(stat), false);
  }
  const usage = BigInt((read(path.join(dir, "memory.usage_in_bytes")) ?? "").trim());
  const ws = floor0(usage - field(stat, "total_inactive_file"));
  const kmem = read(path.join(dir, "memory.kmem.usage_in_bytes"));
  return figures(memTotal, ws, memAvailable, kmem === undefined ? undefined : BigInt(kmem.trim()), false);
}

/** A cgroup of its own (`evictd run`'s node): its usage, its limit as the capacity. */
function cgroupByHand(api: "v1" | "v2", dir: string, read: Read): Figures {
  const meminfo = read("/proc/meminfo") ?? "";
  const memAvailable = meminfoLine(meminfo, "MemAvailable");
  const stat = statOf(read(path.join(dir, "memory.stat")) ?? "");
  const limitText = (
    read(path.join(dir, api === "v2" ? "memory.max" : "memory.limit_in_bytes")) ?? ""
  ).trim();
  assert.notEqual(limitText, "max", "the node has a memory limit");
  const capacity = BigInt(limitText);
  if (api === "v2") {
    const usage = BigInt((read(path.join(dir, "memory.current")) ?? "").trim());
    return figures(
      capacity,
      floor0(usage - field(stat, "inactive_file")),
      memAvailable,
      v2Kernel(stat),
      true,
    );
  }
  const usage = BigInt((read(path.join(dir, "memory.usage_in_bytes")) ?? "").trim());
  const kmem = read(path.join(dir, "memory.kmem.usage_in_bytes"));
  return figures(
    capacity,
    floor0(usage - field(stat, "total_inactive_file")),
    memAvailable,
    kmem === undefined ? undefined : BigInt(kmem.trim()),
    true,
  );
}

/** A file's text now; undefined when it does not exist. */
const readNow: Read = (file) => {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
};

/** evictd's views as the same figures. */
function ofViews(v: NodeMemoryViews): Figures {
  return {
    capacity: v.capacityBytes,
    kubeletWorkingSet: v.kubelet.workingSetBytes,
    kubeletAvailable: v.kubelet.availableBytes,
    memAvailable: v.kernelAvailable?.availableBytes,
    kernelMemory: v.withKernelMemory?.kernelMemoryBytes,
    withKernelWorkingSet: v.withKernelMemory?.workingSetBytes,
    withKernelAvailable: v.withKernelMemory?.availableBytes,
  };
}

const NAMES = Object.keys(figures(0n, 0n, 0n, 0n, false)) as (keyof Figures)[];
const spread = (a: Figures, b: Figures): bigint =>
  NAMES.reduce((most, k) => {
    const x = a[k];
    const y = b[k];
    const d = x === undefined || y === undefined ? 0n : x > y ? x - y : y - x;
    return d > most ? d : most;
  }, 0n);

/**
 * Reads by hand, then through evictd, then by hand again, until the two hand reads agree within
 * TOLERANCE (at most LOOKS times); asserts each of evictd's figures lies within them, ± TOLERANCE
 * (widened by the movement of the quietest look when none was quiet).
 */
async function assertAroundLiveReads(byHand: () => Figures, evictd: () => NodeMemoryViews): Promise<Figures> {
  let best: { before: Figures; got: Figures; after: Figures; moved: bigint } | undefined;
  for (let look = 0; look < LOOKS; look++) {
    const before = byHand();
    const got = ofViews(evictd());
    const after = byHand();
    const moved = spread(before, after);
    if (best === undefined || moved < best.moved) best = { before, got, after, moved };
    if (moved <= TOLERANCE) break;
    await sleep(scaled(100));
  }
  assert.ok(best !== undefined);
  const { before, got, after, moved } = best;
  const tolerance = moved <= TOLERANCE ? TOLERANCE : TOLERANCE + moved;
  if (moved > TOLERANCE)
    console.error(`# no quiet look: figures moved ${moved} bytes; tolerance ${tolerance}`);
  for (const k of NAMES) {
    const [a, b, g] = [before[k], after[k], got[k]];
    assert.equal(g === undefined, a === undefined, `${k}: evictd ${g}, by hand ${a}`);
    if (a === undefined || b === undefined || g === undefined) continue;
    const lo = (a < b ? a : b) - tolerance;
    const hi = (a > b ? a : b) + tolerance;
    assert.ok(
      g >= lo && g <= hi,
      `${k}: evictd ${g} not within [${lo}, ${hi}] (by hand ${a} before, ${b} after)`,
    );
  }
  return got;
}

// ---------------------------------------------------------------------------------------------

describe("the node's memory three ways, against this machine's own files", { skip }, () => {
  const api = memory?.api ?? "v2";
  const rootDir = memory?.mount ?? "/sys/fs/cgroup";
  const name = `evictd-views-${process.pid}-${Math.floor(Math.random() * 1e6)}`;
  const shm = path.join("/dev/shm", name);
  let driver: CgroupDriver;
  let node: NodeCgroups;
  let load: ChildProcess | undefined;
  let kubepodsParent: string | undefined;
  let reader: KubeletMemoryReader | undefined;

  before(async () => {
    assert.ok(choice?.ok && memory !== undefined);
    driver = choice.driver;
    node = await driver.createNode({
      name,
      memoryLimitBytes: 512n * MiB,
      pidsMax: 1000,
      pods: { memoryLimitBytes: 448n * MiB, pidsMax: 900 },
    });
    const pod = await driver.createPod("views-load-0001", "Burstable");
    const app = await driver.createContainer(pod, "app");
    const script = `mkdir -p "$1" && cd "$1" && seq -f f%g 1 ${LOAD_FILES} | xargs touch && echo ready && exec sleep 600`;
    load = spawnInCgroups(
      ["sh", "-c", script, "load", shm],
      { PATH: process.env["PATH"] ?? "/usr/bin:/bin" },
      "/",
      driver.procFiles(app),
    );
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the load did not get ready")), scaled(60_000));
      let out = "";
      load?.stdout?.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("ready\n")) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    // The kubelet's layout for the memory reader, with the root cgroup as the node: a kubepods
    // cgroup is made below this process's own cgroup (cgroupRoot names it), never at the root.
    const kubeletRoot = `${name}-kubelet`;
    const cgroupRoot = path.posix.join(memory.ownPath, kubeletRoot);
    kubepodsParent = path.join(memory.dir, kubeletRoot);
    mkdirSync(path.join(kubepodsParent, "kubepods"), { recursive: true });
    const cgroupfs = api === "v1" ? path.dirname(rootDir) : rootDir;
    reader = new KubeletMemoryReader(new KubeletCgroupTree({ cgroupfs, driver: "cgroupfs", cgroupRoot }));
  });

  after(async () => {
    reader?.close();
    if (load !== undefined && load.exitCode === null && load.signalCode === null) load.kill("SIGKILL");
    await driver?.destroyNode({ name });
    rmSync(shm, { recursive: true, force: true });
    if (kubepodsParent !== undefined) {
      rmdirSync(path.join(kubepodsParent, "kubepods"));
      rmdirSync(kubepodsParent);
    }
  });

  test(`the root cgroup (${api}): on the very texts evictd read, every figure as worked out by hand`, () => {
    const texts = new Map<string, string>();
    const recording = (file: string): string => {
      const text = readFileSync(file, "utf8");
      texts.set(file, text);
      return text;
    };
    const reading = readNodeMemoryViews(
      { api, dir: rootDir, isRoot: true, describe: "the root cgroup" },
      { read: recording },
    );
    const expectedFiles =
      api === "v2"
        ? ["memory.stat"]
        : ["memory.stat", "memory.usage_in_bytes", "memory.kmem.usage_in_bytes"].filter(
            (f) => f !== "memory.kmem.usage_in_bytes" || readNow(path.join(rootDir, f)) !== undefined,
          );
    assert.deepEqual(
      [...texts.keys()].sort(),
      [...expectedFiles.map((f) => path.join(rootDir, f)), "/proc/meminfo"].sort(),
      "evictd reads the root's files and /proc/meminfo, nothing else",
    );
    const byHand = rootByHand(api, rootDir, (file) => texts.get(file));
    assert.deepEqual(ofViews(reading.views), byHand);
    assert.equal(reading.views.kubelet.usageFrom, api === "v2" ? "anon + file" : "memory.usage_in_bytes");
    assert.equal(
      reading.views.withKernelMemory?.kernelMemoryFrom,
      byHand.kernelMemory === undefined
        ? undefined
        : api === "v2"
          ? "kernel + sock"
          : "memory.kmem.usage_in_bytes",
    );
    console.error(
      `# root (${api}): kubelet ${byHand.kubeletAvailable}, MemAvailable ${byHand.memAvailable}, with kernel memory ${byHand.withKernelAvailable} (kernel ${byHand.kernelMemory})`,
    );
  });

  test(`the root cgroup (${api}), live through watch's kubelet memory reader: within what was read around it`, async () => {
    const views = (): NodeMemoryViews => {
      const reading = reader?.readNodeMemoryViews();
      assert.ok(reading !== undefined, "the reader reads the root's views");
      return reading.views;
    };
    const got = await assertAroundLiveReads(() => rootByHand(api, rootDir, readNow), views);
    // The root's usage leaves kernel memory out: the load's inodes and dentries make the view differ.
    if (got.kernelMemory !== undefined) {
      assert.ok(
        got.kernelMemory >= 2n * TOLERANCE,
        `the root's kernel memory (${got.kernelMemory}) shows the load`,
      );
      assert.equal(got.withKernelWorkingSet, got.kubeletWorkingSet + got.kernelMemory);
    }
  });

  test(`evictd run's node cgroup (${api}), live through the stats collector: usage counts kernel memory already`, async () => {
    const dir = driver.directories(node.node).memory;
    const collector = new LinuxSummaryCollector({
      node: {
        name,
        capacity: { memoryBytes: 512n * MiB },
        podsMemoryLimitBytes: 448n * MiB,
        stateDir: "/tmp",
      },
      cgroups: { driver, node },
    });
    try {
      const views = (): NodeMemoryViews => {
        const reading = collector.readNodeMemoryViews();
        assert.ok(reading !== undefined, "the collector reads its node's views");
        return reading.views;
      };
      const got = await assertAroundLiveReads(() => cgroupByHand(api, dir, readNow), views);
      assert.equal(got.capacity, 512n * MiB);
      if (got.kernelMemory !== undefined) {
        assert.ok(
          got.kernelMemory >= 2n * TOLERANCE,
          `the node's kernel memory (${got.kernelMemory}) shows the load`,
        );
        assert.equal(got.withKernelAvailable, got.kubeletAvailable, "the same figure: nothing added");
      }
      assert.equal(views().withKernelMemory?.alreadyInKubeletFigure ?? true, true);
      console.error(
        `# evictd's node (${api}): kubelet ${got.kubeletAvailable} of ${got.capacity}, of which kernel memory ${got.kernelMemory}`,
      );
    } finally {
      collector.close();
    }
  });
});
