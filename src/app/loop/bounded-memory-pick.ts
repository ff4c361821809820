/**
 * The decision of a memory wake, made from every pod's memory usage and the working sets of only the
 * pods it picks, yet the decision a complete read would give.
 *
 * A pod's working set needs its `memory.stat`, the dearest file of a read (on a 110-pod node most of
 * a memory wake's read time), while its usage, the working set's upper bound, is cheap. So a memory
 * wake reads usage alone; the engine decides with each unread pod at its bound; the pods it picks
 * are read in full and it decides again, until every pod it picks was read in full. Then no other
 * pod can rank ahead of them at its real working set (core/rank/working-set-bounds.ts). On a node
 * where one pod ramps, that is one pod read and two decisions. A read may also leave pods out
 * altogether (`StatsSample.unread`: a large node's quiet pods, bounded together by the pods
 * cgroup's usage); should the engine pick one of them, the source reads them all when asked for
 * it. After a few rounds without that, or when the picked pods' working sets cannot be read, a
 * complete read decides instead.
 */
import type { SyncResult } from "../../core/engine/types.js";
import type { NodeSummary } from "../../core/model.js";
import {
  lacksWorkingSet,
  podsLackingWorkingSet,
  withWorkingSetBounds,
} from "../../core/rank/working-set-bounds.js";
import type { StatsSample } from "../ports.js";

/**
 * Rounds of "decide on bounds, read the picked pods" before a complete read decides instead: two
 * for the picked pods' working sets, and one more when the pick was a pod the read left unread.
 */
export const MAX_BOUNDED_ROUNDS = 4;

export interface BoundedPick {
  /** The sample the decision was made from (the wake's read with the picked pods read in full). */
  readonly sample: StatsSample | undefined;
  readonly result: SyncResult;
  /**
   * True when the decision was made on bounds: the pods it picks are the complete read's, but its
   * report's ranking past them and its refusals come from bounds, so the caller reads the rest and
   * records a decision from a complete read.
   */
  readonly bounded: boolean;
}

export interface BoundedPickPorts {
  readonly decide: (summary: NodeSummary | undefined) => SyncResult;
  /** `sample` with the named pods read in full, or undefined when they cannot be read. */
  readonly readPods: (sample: StatsSample, uids: readonly string[]) => Promise<StatsSample | undefined>;
  /** A complete read, or undefined when none could be made. */
  readonly readAll: () => Promise<StatsSample | undefined>;
}

export async function pickOnBounds(first: StatsSample, ports: BoundedPickPorts): Promise<BoundedPick> {
  let sample = first;
  for (let round = 0; round < MAX_BOUNDED_ROUNDS; round++) {
    const unread = podsLackingWorkingSet(sample.summary, sample.unread);
    if (unread.size === 0) return { sample, result: ports.decide(sample.summary), bounded: false };
    const result = ports.decide(withWorkingSetBounds(sample.summary, sample.unread));
    // Node-level reclaim and a read after it: that path takes a complete read.
    if (result.kind !== "done") break;
    const toRead = result.report.evictions.map((e) => e.pod.uid).filter((uid) => unread.has(uid));
    if (toRead.length === 0) return { sample, result, bounded: true };
    const read = await ports.readPods(sample, toRead);
    if (
      read === undefined ||
      toRead.some((uid) => lacksWorkingSetOf(read, uid) || read.unread?.uids.has(uid))
    )
      break;
    sample = read;
  }
  const complete = await ports.readAll();
  return { sample: complete, result: ports.decide(complete?.summary), bounded: false };
}

/** True when the pod `uid` in `sample` still reports usage without a working set. */
function lacksWorkingSetOf(sample: StatsSample, uid: string): boolean {
  const pod = sample.summary.pods.find((p) => p.podRef.uid === uid);
  return pod !== undefined && lacksWorkingSet(pod);
}
