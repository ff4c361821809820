import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { IssueList } from "../issues.js";
import type { NodeSummary } from "../model.js";
import { decodeSummary } from "./decode-summary.js";
import { EXACT_INT_PREFIX } from "./exact-integer.js";

const T0 = Date.UTC(2025, 0, 1); // 2025-01-01T00:00:00Z
const STEP_TIME = Date.UTC(2025, 0, 1, 0, 5); // the replay step's time, used for missing time fields

/** Pod stats as plain data (the decoder builds them as lazy objects), for deep comparisons. */
function plainPods(pods: NodeSummary["pods"]): unknown[] {
  return pods.map((p) => ({
    podRef: p.podRef,
    ...(p.memory !== undefined ? { memory: p.memory } : {}),
    containers: p.containers,
    volumes: p.volumes,
    ...(p.ephemeralStorage !== undefined ? { ephemeralStorage: p.ephemeralStorage } : {}),
    ...(p.processCount !== undefined ? { processCount: p.processCount } : {}),
  }));
}

function decode(raw: unknown, defaultTime: number | undefined): NodeSummary {
  const issues = new IssueList();
  const summary = decodeSummary(raw, "summary", defaultTime, issues);
  assert.deepEqual(issues.items, []);
  assert.ok(summary !== undefined);
  return summary;
}

describe("decodeSummary", () => {
  test("decodes every field eviction reads, as exact bigints and epoch ms", () => {
    const raw = {
      node: {
        nodeName: "n1",
        systemContainers: [
          { name: "kubelet", memory: { time: "2025-01-01T00:00:01Z", workingSetBytes: 5 } },
          {
            name: "pods",
            memory: { time: "2025-01-01T00:00:02Z", availableBytes: 7688695808, workingSetBytes: 528191488 },
          },
        ],
        cpu: { usageNanoCores: 1 },
        memory: {
          time: "2025-01-01T00:00:00.123456Z",
          availableBytes: 7299776512,
          workingSetBytes: 917110784,
          usageBytes: 3080323072,
        },
        fs: {
          time: "2025-01-01T00:00:00Z",
          availableBytes: 1,
          capacityBytes: 2,
          usedBytes: 3,
          inodesFree: 4,
          inodes: 5,
          inodesUsed: 6,
        },
        runtime: {
          imageFs: { time: "2025-01-01T00:00:00Z", availableBytes: 10 },
          containerFs: { time: "2025-01-01T00:00:00Z", usedBytes: 11 },
        },
        rlimit: { time: "2025-01-01T00:00:03Z", maxpid: 62639, curproc: 814 },
      },
      pods: [
        {
          podRef: { name: "web", namespace: "default", uid: "u1" },
          memory: { time: "2025-01-01T00:00:00Z", workingSetBytes: 66478080 },
          containers: [
            {
              name: "app",
              memory: { time: "2025-01-01T00:00:00Z", workingSetBytes: 1 },
              rootfs: { time: "2025-01-01T00:00:00Z", usedBytes: 86016, inodesUsed: 23 },
              logs: { time: "2025-01-01T00:00:00Z", usedBytes: 32768, inodesUsed: 1 },
            },
          ],
          volume: [
            {
              time: "2025-01-01T00:00:00Z",
              name: "data",
              usedBytes: 12288,
              inodesUsed: 9,
              availableBytes: 1,
              pvcRef: { name: "claim", namespace: "default" },
            },
          ],
          "ephemeral-storage": { time: "2025-01-01T00:00:00Z", usedBytes: 122880, inodesUsed: 25 },
          process_stats: { process_count: 1 },
          swap: { swapUsageBytes: 0 },
        },
      ],
    };
    const summary = decode(raw, STEP_TIME);
    assert.deepEqual(summary.node, {
      nodeName: "n1",
      systemContainers: [
        { name: "kubelet", memory: { time: T0 + 1000, workingSetBytes: 5n } },
        {
          name: "pods",
          memory: { time: T0 + 2000, availableBytes: 7688695808n, workingSetBytes: 528191488n },
        },
      ],
      memory: {
        time: T0 + 123.456,
        availableBytes: 7299776512n,
        workingSetBytes: 917110784n,
        usageBytes: 3080323072n,
      },
      fs: {
        time: T0,
        availableBytes: 1n,
        capacityBytes: 2n,
        usedBytes: 3n,
        inodesFree: 4n,
        inodes: 5n,
        inodesUsed: 6n,
      },
      runtime: { imageFs: { time: T0, availableBytes: 10n }, containerFs: { time: T0, usedBytes: 11n } },
      rlimit: { time: T0 + 3000, maxpid: 62639n, curproc: 814n },
    });
    assert.deepEqual(plainPods(summary.pods), [
      {
        podRef: { name: "web", namespace: "default", uid: "u1" },
        memory: { time: T0, workingSetBytes: 66478080n },
        containers: [
          {
            name: "app",
            memory: { time: T0, workingSetBytes: 1n },
            rootfs: { time: T0, usedBytes: 86016n, inodesUsed: 23n },
            logs: { time: T0, usedBytes: 32768n, inodesUsed: 1n },
          },
        ],
        volumes: [
          {
            name: "data",
            usedBytes: 12288n,
            inodesUsed: 9n,
            pvcRef: { name: "claim", namespace: "default" },
          },
        ],
        ephemeralStorage: { time: T0, usedBytes: 122880n, inodesUsed: 25n },
        processCount: 1n,
      },
    ]);
  });

  test("keeps the microseconds of a time stamp as a fraction of a millisecond", () => {
    const summary = decode({ node: { memory: { time: "2025-01-01T00:00:00.000250999Z" } } }, STEP_TIME);
    assert.equal(summary.node.memory?.time, T0 + 0.25);
  });

  describe("time fields", () => {
    const cases: {
      name: string;
      time: unknown;
      defaultTime: number | undefined;
      want: number | undefined;
    }[] = [
      { name: "missing → the step's time", time: undefined, defaultTime: STEP_TIME, want: STEP_TIME },
      { name: "null → the step's time", time: null, defaultTime: STEP_TIME, want: STEP_TIME },
      {
        name: "missing without a default → zero time (unset)",
        time: undefined,
        defaultTime: undefined,
        want: undefined,
      },
      {
        name: "Go's zero time → unset, even with a default",
        time: "0001-01-01T00:00:00Z",
        defaultTime: STEP_TIME,
        want: undefined,
      },
      {
        name: "given → parsed, the default ignored",
        time: "2025-01-01T00:00:00Z",
        defaultTime: STEP_TIME,
        want: T0,
      },
    ];
    for (const c of cases) {
      test(c.name, () => {
        const fs: Record<string, unknown> = { availableBytes: 1 };
        if (c.time !== undefined) fs.time = c.time;
        const summary = decode(
          {
            node: { fs, runtime: { imageFs: { ...fs } }, rlimit: { ...fs }, memory: { ...fs } },
            pods: [{ podRef: { name: "a", namespace: "b" }, containers: [{ name: "c", rootfs: { ...fs } }] }],
          },
          c.defaultTime,
        );
        const blocks = [
          summary.node.fs,
          summary.node.runtime?.imageFs,
          summary.node.rlimit,
          summary.node.memory,
          summary.pods[0]?.containers[0]?.rootfs,
        ];
        for (const block of blocks) {
          assert.ok(block !== undefined);
          assert.equal(block.time, c.want);
          assert.equal("time" in block, c.want !== undefined, "an unset time is absent, not undefined");
        }
      });
    }
  });

  test("bigint counters (YAML reader) and exact-integer sentinels (JSON reader) decode exactly", () => {
    const summary = decode(
      {
        node: {
          fs: {
            inodesFree: 18446744073709551615n,
            inodes: `${EXACT_INT_PREFIX}18446744073709551614`,
            usedBytes: 0,
          },
        },
      },
      STEP_TIME,
    );
    assert.deepEqual(summary.node.fs, {
      time: STEP_TIME,
      inodesFree: 18446744073709551615n,
      inodes: 18446744073709551614n,
      usedBytes: 0n,
    });
  });

  test("pressure and swap: totals exact, averages as numbers, at every level", () => {
    const psi = (total: unknown, avg10: number, fullTotal: unknown = 0) => ({
      some: { total, avg10, avg60: 38.43, avg300: 10.46 },
      full: { total: fullTotal, avg10: 0, avg60: 0, avg300: 0 },
    });
    /** As decoded: every total a bigint. */
    const decoded = (total: bigint, avg10: number) => psi(total, avg10, 0n);
    const summary = decode(
      {
        node: {
          systemContainers: [{ name: "pods", memory: { psi: psi(15, 0) }, cpu: { psi: psi(1, 76.64) } }],
          memory: { workingSetBytes: 1, psi: psi(`${EXACT_INT_PREFIX}18446744073709551615`, 0.01) },
          cpu: { time: "2025-01-01T00:00:00Z", usageNanoCores: 573081903, psi: psi(34335662, 75.83) },
          io: { time: "2025-01-01T00:00:00Z", psi: psi(171148n, 100) },
          swap: { time: "2025-01-01T00:00:00Z", swapAvailableBytes: 1073737728, swapUsageBytes: 0 },
        },
        pods: [
          {
            podRef: { name: "web", namespace: "default", uid: "u1" },
            memory: { workingSetBytes: 2, psi: psi(7, 1.5) },
            swap: { swapUsageBytes: 4096 },
            containers: [{ name: "app", io: { psi: psi(9, 2.5) }, swap: { time: "2025-01-01T00:00:00Z" } }],
          },
        ],
      },
      STEP_TIME,
    );
    const node = summary.node;
    assert.deepEqual(node.memory, {
      time: STEP_TIME,
      workingSetBytes: 1n,
      psi: decoded(18446744073709551615n, 0.01),
    });
    assert.deepEqual(node.cpu, { psi: decoded(34335662n, 75.83) }, "of cpu only the pressure");
    assert.deepEqual(node.io, { time: T0, psi: decoded(171148n, 100) });
    assert.deepEqual(node.swap, { time: T0, swapAvailableBytes: 1073737728n, swapUsageBytes: 0n });
    assert.equal(node.systemContainers[0]?.memory?.psi?.some?.total, 15n);
    assert.equal(node.systemContainers[0]?.cpu?.psi?.some?.avg10, 76.64);
    const [pod] = summary.pods;
    assert.equal(pod?.memory?.psi?.some?.total, 7n);
    assert.deepEqual(pod?.swap, { time: STEP_TIME, swapUsageBytes: 4096n }, "not reported stays absent");
    assert.equal(pod?.cpu, undefined);
    assert.equal(pod?.io, undefined);
    assert.deepEqual(pod?.containers[0]?.io, { time: STEP_TIME, psi: decoded(9n, 2.5) });
    assert.deepEqual(pod?.containers[0]?.swap, { time: T0 });
  });

  test("a cpu block without pressure decodes to nothing (its usage is not read)", () => {
    const summary = decode({ node: { cpu: { usageNanoCores: 1, usageCoreNanoSeconds: 2 } } }, STEP_TIME);
    assert.equal(summary.node.cpu, undefined);
    assert.equal("cpu" in summary.node, false);
  });

  test("bad pressure figures are issues, not exceptions", () => {
    const issues = new IssueList();
    const summary = decodeSummary(
      { node: { memory: { psi: { some: { total: -1, avg10: "high" } } }, swap: { swapUsageBytes: 1.5 } } },
      "steps[0].summary",
      STEP_TIME,
      issues,
    );
    assert.equal(summary, undefined);
    assert.deepEqual(
      issues.items.map((i) => `${i.path}: ${i.message}`),
      [
        "steps[0].summary.node.memory.psi.some.total: expected a non-negative integer (uint64), got -1",
        'steps[0].summary.node.memory.psi.some.avg10: expected a percentage from 0 to 100, got "high"',
        "steps[0].summary.node.swap.swapUsageBytes: expected a non-negative integer (uint64), got 1.5",
      ],
    );
  });

  test("null and missing blocks and lists are not reported", () => {
    const summary = decode(
      {
        node: {
          memory: null,
          fs: null,
          runtime: { imageFs: null },
          systemContainers: null,
          userDefinedMetrics: null,
        },
        pods: [
          {
            podRef: { name: "a", namespace: "b" },
            memory: null,
            containers: null,
            volume: null,
            process_stats: null,
          },
        ],
      },
      STEP_TIME,
    );
    assert.deepEqual(summary.node, { systemContainers: [], runtime: {} });
    assert.deepEqual(plainPods(summary.pods), [
      { podRef: { name: "a", namespace: "b", uid: "" }, containers: [], volumes: [] },
    ]);
  });

  test("an empty summary decodes to an empty node and no pods", () => {
    const summary = decode({}, STEP_TIME);
    assert.deepEqual(summary.node, { systemContainers: [] });
    assert.deepEqual(plainPods(summary.pods), []);
  });

  test("invalid input: undefined, with every problem reported", () => {
    const issues = new IssueList();
    const summary = decodeSummary(
      { node: { fs: { availableBytes: "100", time: "noon" } } },
      "steps[3].summary",
      STEP_TIME,
      issues,
    );
    assert.equal(summary, undefined);
    assert.deepEqual(
      issues.items.map((i) => `${i.path}: ${i.message}`),
      [
        'steps[3].summary.node.fs.time: expected an RFC 3339 time such as "2025-01-01T00:00:00Z", got "noon"',
        'steps[3].summary.node.fs.availableBytes: expected a non-negative integer (uint64), got "100"',
      ],
    );
  });

  test("errors already in the list from other input do not fail this summary", () => {
    const issues = new IssueList();
    issues.error("config", "x", "unrelated");
    assert.ok(decodeSummary({ node: {} }, "summary", STEP_TIME, issues) !== undefined);
    assert.equal(issues.items.length, 1);
  });

  test("validated: true skips the checks and never throws on bad values", () => {
    const issues = new IssueList();
    const summary = decodeSummary(
      { node: { fs: { availableBytes: "100", capacityBytes: 1.5, usedBytes: 3, time: "noon" } } },
      "summary",
      STEP_TIME,
      issues,
      { validated: true },
    );
    assert.deepEqual(issues.items, []);
    assert.deepEqual(summary?.node.fs, { usedBytes: 3n });
  });

  test("pods are decoded lazily, once", () => {
    let reads = 0;
    const pod = {
      get podRef(): unknown {
        reads++;
        return { name: "a", namespace: "b", uid: "u" };
      },
    };
    const issues = new IssueList();
    const summary = decodeSummary({ node: {}, pods: [pod] }, "summary", STEP_TIME, issues, {
      validated: true,
    });
    assert.ok(summary !== undefined);
    assert.equal(reads, 0, "decoding the summary must not touch pod stats");
    const first = summary.pods;
    assert.equal(reads, 1);
    assert.equal(summary.pods, first, "the pods array is memoised");
    assert.equal(reads, 1);
    assert.deepEqual(first[0]?.podRef, { name: "a", namespace: "b", uid: "u" });
  });

  test("counters equal in value decode to equal bigints wherever they appear", () => {
    const fs = { availableBytes: 366430162944, capacityBytes: 500684595200 };
    const summary = decode(
      {
        node: { fs },
        pods: [{ podRef: { name: "a", namespace: "b" }, "ephemeral-storage": { ...fs, usedBytes: 1 } }],
      },
      STEP_TIME,
    );
    assert.equal(summary.pods[0]?.ephemeralStorage?.availableBytes, 366430162944n);
    assert.equal(summary.node.fs?.capacityBytes, summary.pods[0]?.ephemeralStorage?.capacityBytes);
  });
});

describe("decodeSummary with an earlier summary sharing pod entries", () => {
  const T = "2026-11-25T12:00:00.5Z";
  const podEntry = (uid: string, ws: number) => ({
    podRef: { name: uid, namespace: "default", uid },
    memory: { time: T, usageBytes: ws, workingSetBytes: ws },
    containers: [],
  });
  const node = { nodeName: "n", memory: { time: T, availableBytes: 1, workingSetBytes: 2 } };

  test("shared entries are not built again; new ones are", () => {
    const a = podEntry("a", 1);
    const first = decodeSummary({ node, pods: [a, podEntry("b", 2)] }, "s", undefined, new IssueList());
    assert.ok(first !== undefined);
    const builtA = first.pods[0];
    const second = decodeSummary({ node, pods: [a, podEntry("b", 3)] }, "s", undefined, new IssueList(), {
      previous: first,
    });
    assert.ok(second !== undefined);
    assert.equal(second.pods[0], builtA);
    assert.equal(second.pods[1]?.memory?.workingSetBytes, 3n);
    assert.equal(second.findPod?.("b", "default/b")?.memory?.workingSetBytes, 3n);
  });

  test("new entries are checked; shared ones, checked before, are not checked again", () => {
    const a = podEntry("a", 1);
    const first = decodeSummary({ node, pods: [a] }, "s", undefined, new IssueList());
    assert.ok(first !== undefined);
    const issues = new IssueList();
    const bad = { ...podEntry("b", 2), memory: { time: "yesterday", workingSetBytes: 2 } };
    assert.equal(
      decodeSummary({ node, pods: [a, bad] }, "s", undefined, issues, { previous: first }),
      undefined,
    );
    assert.deepEqual(
      issues.items.map((i) => i.path),
      ["s.pods[1].memory.time"],
    );
  });
});
