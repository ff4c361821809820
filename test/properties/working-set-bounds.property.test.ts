// Property: a memory wake that reads most pods' usage alone (working set left out) and reads in full
// only the pods the engine picks (app/loop/bounded-memory-pick.ts) evicts exactly what the engine
// evicts from the complete Summary of the same instant. Pods with any mix of priorities (critical
// ones included), requests, usage and inactive file pages; the threshold met by the node's figures.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { pickOnBounds } from "../../src/app/loop/bounded-memory-pick.js";
import type { StatsSample } from "../../src/app/ports.js";
import { buildEvictionConfig } from "../../src/core/config/build-eviction-config.js";
import { synchronize } from "../../src/core/engine/synchronize.js";
import { INITIAL_STATE, type SyncResult } from "../../src/core/engine/types.js";
import { IssueList } from "../../src/core/issues.js";
import type { NodeSummary, Pod, PodStats } from "../../src/core/model.js";
import { decodePod } from "../../src/core/pod/decode-pod.js";
import { pod as podManifest } from "../support/pod-manifests.js";

const MiB = 1024n * 1024n;
const NOW = Date.UTC(2026, 10, 25, 12);

const built = buildEvictionConfig({
  config: { evictionHard: { "memory.available": "500Mi" }, enforceNodeAllocatable: ["none"] },
});
if (!built.ok) throw new Error(JSON.stringify(built.issues));
const config = built.config;

interface PodCase {
  readonly priority: number | undefined;
  readonly requestMiB: number | undefined;
  readonly usageMiB: number;
  /** Inactive file pages as a share of usage (working set = usage − inactive). */
  readonly inactiveShare: number;
  readonly read: boolean;
}

const podCase: fc.Arbitrary<PodCase> = fc.record({
  priority: fc.constantFrom(undefined, 0, 100, -5, 2_000_001_000),
  requestMiB: fc.constantFrom(undefined, 1, 16, 64, 256),
  usageMiB: fc.integer({ min: 0, max: 300 }),
  inactiveShare: fc.constantFrom(0, 0.1, 0.5, 0.9, 1),
  read: fc.boolean(),
});

function activePod(i: number, c: PodCase): Pod {
  const manifest = podManifest(`default/p${i}`, {
    uid: `uid-${i}`,
    ...(c.priority !== undefined ? { priority: c.priority } : {}),
    ...(c.priority === 2_000_001_000 ? { priorityClassName: "system-node-critical" } : {}),
    ...(c.requestMiB !== undefined ? { requests: { memory: `${c.requestMiB}Mi` } } : {}),
  });
  const pod = decodePod(manifest, "pod", new IssueList());
  assert.ok(pod !== undefined);
  return pod;
}

function podStats(i: number, c: PodCase, complete: boolean): PodStats {
  const usage = BigInt(c.usageMiB) * MiB + BigInt(i) * 4096n;
  const inactive = BigInt(Math.floor(Number(usage) * c.inactiveShare));
  const memory =
    complete || c.read
      ? { time: NOW, usageBytes: usage, workingSetBytes: usage - inactive }
      : { time: NOW, usageBytes: usage };
  return {
    podRef: { name: `p${i}`, namespace: "default", uid: `uid-${i}` },
    memory,
    containers: [],
    volumes: [],
  };
}

function summaryOf(pods: readonly PodStats[]): NodeSummary {
  const memory = {
    time: NOW,
    availableBytes: 100n * MiB,
    workingSetBytes: 924n * MiB,
    usageBytes: 950n * MiB,
  };
  return { node: { nodeName: "n", memory, systemContainers: [] }, pods };
}

const picked = (r: SyncResult): string[] =>
  r.kind === "done" ? r.report.evictions.map((e) => `${e.pod.uid} ${e.signal} ${e.message}`) : ["reclaim"];

describe("deciding a memory wake on working-set bounds", () => {
  test("evicts what the complete Summary evicts, reading in full only the pods it picks", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(podCase, { minLength: 1, maxLength: 12 }), async (cases) => {
        const active = cases.map((c, i) => activePod(i, c));
        const complete = summaryOf(cases.map((c, i) => podStats(i, c, true)));
        const decide = (summary: NodeSummary | undefined): SyncResult =>
          synchronize(config, INITIAL_STATE, { now: NOW, summary, activePods: active, layout: "single" });
        const read: string[] = [];
        const wake: StatsSample = {
          raw: undefined,
          summary: summaryOf(cases.map((c, i) => podStats(i, c, false))),
        };
        const pick = await pickOnBounds(wake, {
          decide,
          readPods: (sample, uids) => {
            read.push(...uids);
            const full = new Map(complete.pods.map((p) => [p.podRef.uid, p]));
            const pods = sample.summary.pods.map((p) =>
              uids.includes(p.podRef.uid) ? (full.get(p.podRef.uid) ?? p) : p,
            );
            return Promise.resolve({ raw: undefined, summary: summaryOf(pods) });
          },
          readAll: () => Promise.resolve({ raw: undefined, summary: complete }),
        });
        assert.deepEqual(picked(pick.result), picked(decide(complete)));
        // Only picked pods were read, each at most once.
        assert.equal(new Set(read).size, read.length);
      }),
      { numRuns: 400 },
    );
  });

  test("a ramping pod among idle ones: one pod read, two decisions", async () => {
    const cases: PodCase[] = Array.from({ length: 110 }, (_, i) => ({
      priority: undefined,
      requestMiB: i % 3 === 0 ? undefined : 1,
      usageMiB: i === 57 ? 300 : 1,
      inactiveShare: 0.1,
      read: false,
    }));
    const active = cases.map((c, i) => activePod(i, c));
    let decisions = 0;
    const decide = (summary: NodeSummary | undefined): SyncResult => {
      decisions++;
      return synchronize(config, INITIAL_STATE, { now: NOW, summary, activePods: active, layout: "single" });
    };
    const complete = summaryOf(cases.map((c, i) => podStats(i, c, true)));
    const read: string[] = [];
    const pick = await pickOnBounds(
      { raw: undefined, summary: summaryOf(cases.map((c, i) => podStats(i, c, false))) },
      {
        decide,
        readPods: (sample, uids) => {
          read.push(...uids);
          const pods = sample.summary.pods.map((p) =>
            uids.includes(p.podRef.uid) ? (complete.pods.find((f) => f.podRef.uid === p.podRef.uid) ?? p) : p,
          );
          return Promise.resolve({ raw: undefined, summary: summaryOf(pods) });
        },
        readAll: () => assert.fail("no complete read needed"),
      },
    );
    assert.deepEqual(read, ["uid-57"]);
    assert.equal(decisions, 2);
    assert.equal(pick.bounded, true);
    assert.deepEqual(picked(pick.result), picked(decide(complete)));
  });

  test("with pods left unread and bounded together by the pods cgroup, evicts what the complete Summary evicts", async () => {
    const unreadCase = fc.record({
      pod: podCase,
      unread: fc.boolean(),
      // What the unread pod's entry still carries from an earlier read: anything, or nothing.
      stale: fc.option(fc.record({ usageMiB: fc.integer({ min: 0, max: 300 }), full: fc.boolean() }), {
        nil: undefined,
      }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(unreadCase, { minLength: 1, maxLength: 14 }),
        // Pages charged to the pods cgroup itself, beside its pods (the bound only grows with them).
        fc.constantFrom(0, 1, 64),
        async (cases, ownMiB) => {
          const active = cases.map((c, i) => activePod(i, c.pod));
          const complete = summaryOf(cases.map((c, i) => podStats(i, c.pod, true)));
          const decide = (summary: NodeSummary | undefined): SyncResult =>
            synchronize(config, INITIAL_STATE, { now: NOW, summary, activePods: active, layout: "single" });
          const unreadUids = new Set(cases.flatMap((c, i) => (c.unread ? [`uid-${i}`] : [])));
          const usageBoundBytes =
            BigInt(ownMiB) * MiB +
            complete.pods.reduce(
              (sum, p) => sum + (unreadUids.has(p.podRef.uid) ? (p.memory?.usageBytes ?? 0n) : 0n),
              0n,
            );
          const staleStats = (i: number, c: (typeof cases)[number]): PodStats => {
            const base = podStats(i, c.pod, false);
            if (c.stale === undefined) return withoutMemory(base);
            const usage = BigInt(c.stale.usageMiB) * MiB;
            return {
              ...base,
              memory: c.stale.full
                ? { time: NOW - 10_000, usageBytes: usage, workingSetBytes: usage / 2n }
                : { time: NOW - 10_000, usageBytes: usage },
            };
          };
          const wakePods = cases.map((c, i) => (c.unread ? staleStats(i, c) : podStats(i, c.pod, false)));
          const wake: StatsSample = {
            raw: undefined,
            summary: summaryOf(wakePods),
            ...(unreadUids.size > 0 ? { unread: { uids: unreadUids, usageBoundBytes } } : {}),
          };
          const full = new Map(complete.pods.map((p) => [p.podRef.uid, p]));
          const pick = await pickOnBounds(wake, {
            decide,
            readPods: (sample, uids) => {
              // As the collector: naming an unread pod reads every unread pod's usage.
              const readUnread = uids.some((uid) => sample.unread?.uids.has(uid) === true);
              const pods = sample.summary.pods.map((p) => {
                const uid = p.podRef.uid;
                if (uids.includes(uid)) return full.get(uid) ?? p;
                if (readUnread && sample.unread?.uids.has(uid) === true) {
                  const i = Number(uid.slice(4));
                  return podStats(i, (cases[i] as (typeof cases)[number]).pod, false);
                }
                return p;
              });
              const unread = readUnread ? undefined : sample.unread;
              return Promise.resolve({
                raw: undefined,
                summary: summaryOf(pods),
                ...(unread !== undefined ? { unread } : {}),
              });
            },
            readAll: () => Promise.resolve({ raw: undefined, summary: complete }),
          });
          assert.deepEqual(picked(pick.result), picked(decide(complete)));
        },
      ),
      { numRuns: 400 },
    );
  });
});

/** A pod entry without memory figures (an earlier read that found none). */
function withoutMemory(p: PodStats): PodStats {
  const { memory: _none, ...rest } = p;
  return rest;
}
