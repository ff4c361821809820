// Each pod's last working set read, carried across steps: a memory wake's usage-only read and the
// pods it leaves unread keep the earlier figure, with its time, marked as not the last read's.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { StatsSample } from "../ports.js";
import type { UnreadPods } from "../../core/rank/working-set-bounds.js";
import { LastPodMemory } from "./last-pod-memory.js";
import { olderThanLastReadMs } from "./pod-memory-figures.js";

const Mi = 1024 * 1024;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const at = (ms: number): string => new Date(T0 + ms).toISOString();

interface PodFigures {
  readonly uid: string;
  /** Omitted: usage alone (a memory wake's read). */
  readonly ws?: number;
  readonly usage?: number;
  readonly time: string;
}

/** A raw Summary as the stats ports hand it out (the decoded side is not read by the memo). */
function sample(nodeTime: string, pods: readonly PodFigures[], unread?: UnreadPods): StatsSample {
  const raw = {
    node: { memory: { time: nodeTime, workingSetBytes: 100 * Mi } },
    pods: pods.map((p) => ({
      podRef: { name: p.uid, namespace: "default", uid: p.uid },
      memory: {
        time: p.time,
        usageBytes: p.usage ?? (p.ws ?? 0) + Mi,
        ...(p.ws !== undefined ? { workingSetBytes: p.ws } : {}),
      },
    })),
  };
  const summary = { node: { systemContainers: [] }, pods: [] };
  return unread === undefined ? { raw, summary } : { raw, summary, unread };
}

describe("LastPodMemory", () => {
  test("a full read's figures are the last read's; a memory wake's usage-only read carries them with their time", () => {
    const memo = new LastPodMemory();
    memo.note(
      sample(at(0), [
        { uid: "a", ws: 15 * Mi, time: at(0) },
        { uid: "b", ws: 48 * Mi, time: at(0) },
      ]),
    );
    let f = memo.figures();
    assert.equal(f.readAt, T0);
    assert.deepEqual(f.byUid.get("a"), {
      workingSetBytes: BigInt(15 * Mi),
      usageBytes: BigInt(16 * Mi),
      time: T0,
      fromLastRead: true,
    });
    assert.equal(f.byUid.get("b")?.fromLastRead, true);

    // The memory wake: usage alone for both, b read in full afterwards (the picked pod).
    memo.note(
      sample(at(5000), [
        { uid: "a", usage: 20 * Mi, time: at(5000) },
        { uid: "b", ws: 50 * Mi, time: at(5001) },
      ]),
    );
    f = memo.figures();
    assert.equal(f.readAt, T0 + 5000);
    const a = f.byUid.get("a");
    assert.deepEqual(a, {
      workingSetBytes: BigInt(15 * Mi),
      usageBytes: BigInt(16 * Mi),
      time: T0,
      fromLastRead: false,
    });
    assert.equal(olderThanLastReadMs(a, f), 5000);
    assert.deepEqual(f.byUid.get("b"), {
      workingSetBytes: BigInt(50 * Mi),
      usageBytes: BigInt(51 * Mi),
      time: T0 + 5001,
      fromLastRead: true,
    });
    assert.equal(olderThanLastReadMs(f.byUid.get("b") ?? assert.fail("b"), f), undefined);

    // The next housekeeping reads a again: its figure is the last read's once more.
    memo.note(sample(at(10_000), [{ uid: "a", ws: 16 * Mi, time: at(10_000) }]));
    f = memo.figures();
    assert.equal(f.byUid.get("a")?.fromLastRead, true);
    assert.equal(f.byUid.get("a")?.workingSetBytes, BigInt(16 * Mi));
    assert.equal(f.byUid.has("b"), false, "a pod the last sample does not list is forgotten");
  });

  test("figures handed out again (a housekeeping read reusing them) are an earlier read's", () => {
    const memo = new LastPodMemory();
    memo.note(sample(at(0), [{ uid: "a", ws: 15 * Mi, time: at(0) }]));
    memo.note(sample(at(1000), [{ uid: "a", ws: 15 * Mi, time: at(0) }]));
    const f = memo.figures();
    assert.equal(f.byUid.get("a")?.fromLastRead, false);
    assert.equal(f.byUid.get("a")?.time, T0);
    assert.equal(olderThanLastReadMs(f.byUid.get("a") ?? assert.fail("a"), f), 1000);
  });

  test("a pod left unread keeps the newer of its figures, never as the last read's", () => {
    const memo = new LastPodMemory();
    memo.note(
      sample(at(10_000), [
        { uid: "a", ws: 15 * Mi, time: at(10_000) },
        { uid: "b", ws: 20 * Mi, time: at(10_000) },
      ]),
    );
    // A memory wake on a large node: a and b left unread, their entries the Summary API's, a's
    // older than what was read from its cgroup, b's newer.
    const unread: UnreadPods = { uids: new Set(["a", "b"]), usageBoundBytes: BigInt(64 * Mi) };
    memo.note(
      sample(
        at(20_000),
        [
          { uid: "a", ws: 99 * Mi, time: at(2000) },
          { uid: "b", ws: 21 * Mi, time: at(15_000) },
        ],
        unread,
      ),
    );
    const f = memo.figures();
    assert.deepEqual(
      {
        ws: f.byUid.get("a")?.workingSetBytes,
        t: f.byUid.get("a")?.time,
        last: f.byUid.get("a")?.fromLastRead,
      },
      { ws: BigInt(15 * Mi), t: T0 + 10_000, last: false },
    );
    assert.deepEqual(
      {
        ws: f.byUid.get("b")?.workingSetBytes,
        t: f.byUid.get("b")?.time,
        last: f.byUid.get("b")?.fromLastRead,
      },
      { ws: BigInt(21 * Mi), t: T0 + 15_000, last: false },
    );
  });

  test("new figures measured before the previous step read the node are a source's cached ones", () => {
    const memo = new LastPodMemory();
    memo.note(sample(at(10_000), [{ uid: "a", ws: 15 * Mi, time: at(9000) }]));
    // The Summary API's entry of a pod without a cgroup, refreshed: newer, yet older than the last read.
    memo.note(sample(at(20_000), [{ uid: "a", ws: 16 * Mi, time: at(9500) }]));
    assert.equal(memo.figures().byUid.get("a")?.fromLastRead, false);
    memo.note(sample(at(30_000), [{ uid: "a", ws: 17 * Mi, time: at(25_000) }]));
    assert.equal(memo.figures().byUid.get("a")?.fromLastRead, true);
    // Its cgroup not found this time: the Summary API's older entry does not replace the newer figure.
    memo.note(sample(at(40_000), [{ uid: "a", ws: 99 * Mi, time: at(21_000) }]));
    assert.deepEqual(
      [memo.figures().byUid.get("a")?.workingSetBytes, memo.figures().byUid.get("a")?.fromLastRead],
      [BigInt(17 * Mi), false],
    );
  });

  test("a pod never read in full has no figure; no sample, nothing changes", () => {
    const memo = new LastPodMemory();
    assert.equal(memo.figures().byUid.size, 0);
    assert.equal(memo.figures().readAt, undefined);
    memo.note(sample(at(0), [{ uid: "a", usage: 5 * Mi, time: at(0) }]));
    assert.equal(memo.figures().byUid.has("a"), false);
    memo.note(undefined);
    assert.equal(memo.figures().readAt, T0);
  });
});
