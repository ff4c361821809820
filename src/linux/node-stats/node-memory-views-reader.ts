/**
 * Reads the node-memory views (core/memory/node-memory-views.ts) from the node's cgroup and
 * /proc/meminfo: the kubelet's `memory.available` again, the kernel's `MemAvailable`, and the
 * working set with kernel memory in it. evictd shows them beside the signal; nothing decides on
 * them, so they are read when asked for (an HTTP request, `explain`), never on a loop step.
 *
 * Where kernel memory comes from, by node cgroup:
 * - cgroup v2 root (a kubelet's node): `memory.stat`'s `kernel + sock` (or, before Linux 5.18, its
 *   separate kernel fields), added to the kubelet's `anon + file` working set, which leaves it out.
 * - cgroup v1 root: `memory.kmem.usage_in_bytes` where the kernel has it, added to the working set
 *   from `memory.usage_in_bytes`, which at the root counts page cache and anonymous pages only (v1's
 *   `memory.stat` has no kernel field). TCP buffers have their own v1 counter, charged only where a
 *   TCP limit is set, and are left out. No kmem file: no such view.
 * - any other cgroup (`evictd run`'s own node cgroup, a nested node): its usage (`memory.current`,
 *   v1 `memory.usage_in_bytes`) already counts the kernel memory charged to it, so the view is the
 *   kubelet's figure, shown with the kernel memory it holds (v2 `kernel + sock`, v1 kmem).
 */
import type { EpochMs } from "../../core/model.js";
import { kernelMemoryFromStat, type KernelMemory } from "../../core/memory/kernel-memory.js";
import {
  nodeMemoryViews,
  rootCgroupV2MemoryViews,
  type NodeMemoryViews,
  type NodeMemoryViewsReading,
} from "../../core/memory/node-memory-views.js";
import { AdapterError } from "../../errors.js";
import { parseFlatKeyed } from "../cgroups/cgroup-files.js";
import { parseMeminfo } from "../procfs.js";
import { readKernelFile, type ReadText } from "./cgroup-stats-reader.js";

/** The cgroup that stands for the node. */
export interface NodeMemoryViewsTarget {
  readonly api: "v1" | "v2";
  /** Its memory directory. */
  readonly dir: string;
  /** Whether it is the hierarchy's root (the machine, what the kubelet measures). */
  readonly isRoot: boolean;
  /** The node's capacity when a non-root cgroup has no memory limit (default: MemTotal). */
  readonly capacityBytes?: bigint;
  /** What it is, for the source line: `the root cgroup`, `evictd's node cgroup`. */
  readonly describe: string;
}

export interface NodeMemoryViewsReadOptions {
  /** Where procfs is (default `/proc`). */
  readonly procRoot?: string;
  /** How files are read (default: a fresh synchronous read). */
  readonly read?: ReadText;
  /** The clock the reading is stamped with (default Date.now). */
  readonly now?: () => EpochMs;
}

/** v1 writes "unlimited" as the largest page-aligned int64 (9223372036854771712). */
const V1_UNLIMITED_FROM = 1n << 62n;

const FILES = {
  v1: { usage: "memory.usage_in_bytes", limit: "memory.limit_in_bytes" },
  v2: { usage: "memory.current", limit: "memory.max" },
} as const;

function integer(path: string, text: string): bigint {
  const t = text.trim();
  if (!/^\d+$/.test(t))
    throw new AdapterError("cgroup-parse", `cannot parse ${path}: ${JSON.stringify(t)} is not an integer`);
  return BigInt(t);
}

/** The views of the node now; throws `AdapterError` when a file it needs cannot be read or parsed. */
export function readNodeMemoryViews(
  target: NodeMemoryViewsTarget,
  options: NodeMemoryViewsReadOptions = {},
): NodeMemoryViewsReading {
  const read = options.read ?? readKernelFile;
  const at = (options.now ?? Date.now)();
  const procRoot = options.procRoot ?? "/proc";
  const file = (name: string): string => `${target.dir.replace(/\/+$/, "")}/${name}`;
  const statPath = file("memory.stat");
  const stat = parseFlatKeyed(statPath, read(statPath));
  const usagePath = target.api === "v2" && target.isRoot ? undefined : file(FILES[target.api].usage);
  const usage = usagePath === undefined ? undefined : integer(usagePath, read(usagePath));
  const kmem = target.api === "v1" ? readKmem(file("memory.kmem.usage_in_bytes"), read) : undefined;
  const limitPath = target.isRoot ? undefined : file(FILES[target.api].limit);
  const limit = limitPath === undefined ? undefined : readLimit(limitPath, read);
  const meminfoPath = `${procRoot}/meminfo`;
  const meminfo = parseMeminfo(read(meminfoPath));
  if (meminfo === undefined)
    throw new AdapterError("procfs-parse", `cannot parse ${meminfoPath}: no MemTotal/MemFree lines`);
  const source = `${target.describe}'s ${[usagePath, statPath, kmem?.path].filter((p) => p !== undefined).join(", ")} and ${meminfoPath}`;

  let views: NodeMemoryViews | undefined;
  if (usage === undefined) {
    views = rootCgroupV2MemoryViews(stat, meminfo);
  } else {
    const inactiveFile =
      target.api === "v1"
        ? (stat.get("total_inactive_file") ?? stat.get("inactive_file"))
        : stat.get("inactive_file");
    const kernelMemory: KernelMemory | undefined =
      target.api === "v2"
        ? kernelMemoryFromStat(stat)
        : kmem === undefined
          ? undefined
          : { bytes: kmem.bytes, from: "memory.kmem.usage_in_bytes" };
    views =
      inactiveFile === undefined
        ? undefined
        : nodeMemoryViews({
            capacityBytes: limit ?? target.capacityBytes ?? meminfo.totalBytes,
            usageBytes: usage,
            usageFrom: FILES[target.api].usage,
            inactiveFileBytes: inactiveFile,
            memAvailableBytes: meminfo.availableBytes,
            kernelMemory,
            usageCountsKernelMemory: !target.isRoot,
          });
  }
  if (views === undefined)
    throw new AdapterError(
      "cgroup-parse",
      `cannot parse ${statPath}: no ${usage === undefined ? "anon, file or inactive_file" : "inactive_file"} line`,
    );
  return { at, source, views };
}

/** v1 `memory.kmem.usage_in_bytes`, or undefined where the kernel has no such file (built without kmem). */
function readKmem(path: string, read: ReadText): { path: string; bytes: bigint } | undefined {
  let text: string;
  try {
    text = read(path);
  } catch (error) {
    if (error instanceof AdapterError && error.code === "cgroup-not-found") return undefined;
    throw error;
  }
  return { path, bytes: integer(path, text) };
}

/** A memory limit; undefined when unlimited (`max`, or v1's near-2^63 "unlimited"). */
function readLimit(path: string, read: ReadText): bigint | undefined {
  const text = read(path).trim();
  if (text === "max") return undefined;
  const limit = integer(path, text);
  return limit >= V1_UNLIMITED_FROM ? undefined : limit;
}
