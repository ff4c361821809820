/**
 * The last working set read for each pod, kept across the loop's steps for /status and the page.
 *
 * A step's sample need not hold every pod's working set: a memory wake reads most pods' usage alone
 * and, on a large node, leaves some unread (their entries an earlier read's), because that is all
 * its decision needs (app/loop/bounded-memory-pick.ts). /status then showed "working set 0" for
 * those pods. Reading them again for the page would put reads on the wake's way to a kill or race
 * it; instead the figure each pod had when it was last read is carried forward with the time it
 * was read, and the views say when it is older than the last sample's read (the choice the kubelet
 * makes too: its Summary's figures each carry their own time).
 *
 * Fed with every step's sample after its kills (EvictionLoop `podMemory`), from the raw Summary:
 * reading it costs no decoding on the loop's thread (a decoder builds pods only when asked), and
 * the figures are decoded when a view asks. Pure.
 */
import { isRawObject, type RawObject } from "../../core/raw/raw-object.js";
import type { EpochMs } from "../../core/model.js";
import { toCounter } from "../../core/summary/uint64-counter.js";
import { parseRfc3339 } from "../../core/time/rfc3339.js";
import type { StatsSample } from "../ports.js";
import type { PodMemoryFigure, PodMemoryFigures } from "./pod-memory-figures.js";

interface Known {
  /** The raw `memory` block of the pod entry it was read in (with a working set). */
  memory: RawObject;
  /** The step whose read read it; 0 when it was taken from an entry its step left unread. */
  readBy: number;
  /** The last step whose sample listed the pod. */
  seen: number;
}

function timeOf(raw: unknown): EpochMs | undefined {
  if (typeof raw !== "string") return undefined;
  const t = parseRfc3339(raw);
  return typeof t === "number" ? t : undefined;
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

export class LastPodMemory {
  readonly #known = new Map<string, Known>();
  #step = 0;
  /** The raw time of the last sample's node memory (its read time). */
  #readAt: unknown;

  /** Takes in the sample a step decided from (call once per step, in order). */
  note(sample: StatsSample | undefined): void {
    if (sample === undefined) return;
    const step = ++this.#step;
    const raw = sample.raw;
    const node = isRawObject(raw) && isRawObject(raw["node"]) ? raw["node"] : undefined;
    const previousReadAt = timeOf(this.#readAt);
    this.#readAt = node !== undefined && isRawObject(node["memory"]) ? node["memory"]["time"] : undefined;
    const pods = isRawObject(raw) && Array.isArray(raw["pods"]) ? raw["pods"] : [];
    const unread = sample.unread?.uids;
    for (const entry of pods) {
      if (!isRawObject(entry) || !isRawObject(entry["podRef"])) continue;
      const uid = entry["podRef"]["uid"];
      if (typeof uid !== "string") continue;
      const known = this.#known.get(uid);
      if (known !== undefined) known.seen = step;
      const memory = entry["memory"];
      // Usage alone (a memory wake) or nothing: the pod keeps what it had.
      if (!isRawObject(memory) || !present(memory["workingSetBytes"])) continue;
      if (known?.memory === memory) continue;
      if (unread?.has(uid) === true) {
        // An entry the read left as it was (an earlier read's, or the Summary API's): taken only
        // when newer than what is known, and never as this step's read.
        const t = timeOf(memory["time"]);
        const knownAt = known === undefined ? undefined : timeOf(known.memory["time"]);
        if (known === undefined || (t !== undefined && (knownAt === undefined || t > knownAt)))
          this.#known.set(uid, { memory, readBy: 0, seen: step });
        continue;
      }
      if (known !== undefined && memory["time"] === known.memory["time"]) {
        // The same figures handed out again (a housekeeping read reusing them): read by an earlier step.
        known.memory = memory;
        continue;
      }
      // New figures: this step's read, unless they were measured before the step before it read
      // the node (a source's cached figures, such as the Summary API's for a pod without a cgroup).
      const t = timeOf(memory["time"]);
      const fresh = previousReadAt === undefined || t === undefined || t > previousReadAt;
      const knownAt = known === undefined ? undefined : timeOf(known.memory["time"]);
      // Such figures never replace newer ones (a pod whose cgroup was not found this time).
      if (!fresh && t !== undefined && knownAt !== undefined && knownAt >= t) continue;
      this.#known.set(uid, { memory, readBy: fresh ? step : 0, seen: step });
    }
    for (const [uid, known] of this.#known) if (known.seen !== step) this.#known.delete(uid);
  }

  /** Every pod's last working set read, as of the last sample taken in. */
  figures(): PodMemoryFigures {
    const byUid = new Map<string, PodMemoryFigure>();
    for (const [uid, known] of this.#known) {
      const workingSetBytes = toCounter(known.memory["workingSetBytes"]);
      if (workingSetBytes === undefined) continue;
      const usageBytes = toCounter(known.memory["usageBytes"]);
      const time = timeOf(known.memory["time"]);
      byUid.set(uid, {
        workingSetBytes,
        ...(usageBytes !== undefined ? { usageBytes } : {}),
        ...(time !== undefined ? { time } : {}),
        fromLastRead: known.readBy === this.#step,
      });
    }
    const readAt = timeOf(this.#readAt);
    return { ...(readAt !== undefined ? { readAt } : {}), byUid };
  }
}
