/**
 * Which pods a memory wake on a large node reads, and when it may leave the rest unread.
 *
 * Every page charged to a pod is charged to the pods cgroup above it too (cgroup v1 with
 * `use_hierarchy`, as the kubelet requires it, and cgroup v2 alike), so the pods cgroup's usage less
 * the usage of the pods read bounds the usage of each pod not read. On a node of 110 pods where a
 * handful hold most of the memory, reading those few makes that bound smaller than anything the
 * ranking could pick them over, and the other hundred reads (each a system call, an entry to build
 * and to decode: most of a 110-pod wake's time in the daemon) are not made at all. Where the bound
 * stays large, reading goes on; and should the engine still pick an unread pod, they are all read
 * (`LinuxSummaryCollector.refreshPods`): the decision is the one a complete read makes either way
 * (core/rank/working-set-bounds.ts).
 *
 * The order: pods that must be read first (never read, or their last read found no memory figures),
 * then by the usage last read, largest first, so that a pod that grew since is read among the first
 * unless it was the smallest of them all before (and then the bound catches it: reading continues).
 */

/** A memory wake always reads at least this many pods; on a node of no more, it reads them all. */
export const MIN_PODS_READ = 8;

/**
 * Indices of the pods in the order a memory wake reads them: the pods without a last usage (they
 * must be read) in their own order, then the others by last usage, largest first.
 */
export function usageReadOrder(lastUsage: readonly (bigint | undefined)[]): number[] {
  const must: number[] = [];
  const known: number[] = [];
  lastUsage.forEach((u, i) => (u === undefined ? must : known).push(i));
  known.sort((a, b) => {
    const ua = lastUsage[a] as bigint;
    const ub = lastUsage[b] as bigint;
    return ua > ub ? -1 : ua < ub ? 1 : a - b;
  });
  return [...must, ...known];
}

/**
 * Whether the pods not read yet may stay unread: at least {@link MIN_PODS_READ} were read and the
 * usage left for the others, together (`podsUsage − readUsage`), is at most half of the largest pod
 * read. Half: room for the requests and priorities the ranking weighs besides usage; where that is
 * not enough, the engine's pick says so and everything is read.
 */
export function restMayStayUnread(
  read: number,
  podsUsage: bigint,
  readUsage: bigint,
  largestRead: bigint,
): boolean {
  return read >= MIN_PODS_READ && podsUsage - readUsage <= largestRead / 2n;
}

/**
 * A memory wake's pod reads: `readPod(i)` (the usage it read, undefined when it could not) in
 * {@link usageReadOrder} of `lastUsage`, until the rest may stay unread against `podsUsage`, the
 * pods cgroup's usage read before them. Returns the indices left unread ([] when every pod was read);
 * a pod without a last usage is always read.
 */
export function readLargestFirst(
  lastUsage: readonly (bigint | undefined)[],
  podsUsage: bigint,
  readPod: (i: number) => bigint | undefined,
): number[] {
  const order = usageReadOrder(lastUsage);
  let read = 0;
  let readBytes = 0n;
  let largest = 0n;
  for (let k = 0; k < order.length; k++) {
    const i = order[k] as number;
    if (lastUsage[i] !== undefined && restMayStayUnread(read, podsUsage, readBytes, largest))
      return order.slice(k);
    const usage = readPod(i);
    read++;
    if (usage !== undefined) {
      readBytes += usage;
      if (usage > largest) largest = usage;
    }
  }
  return [];
}
