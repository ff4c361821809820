// Where memory notifications are armed: the kubelet's formula, and the working set at which the threshold is met.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildEvictionConfig } from "../config/build-eviction-config.js";
import type { NodeSummary } from "../model.js";
import { memcgThreshold, memoryThresholdArming } from "./memory-threshold-arming.js";

const Mi = 1024n * 1024n;
const Gi = 1024n * Mi;

describe("memcgThreshold", () => {
  // capacity − evictionQuantity + (usage − workingSet), upstream UpdateThreshold.
  const cases = [
    {
      name: "no inactive file: the threshold is capacity minus the eviction quantity",
      input: { capacity: 8n * Gi, workingSet: 6n * Gi, usage: 6n * Gi, evictionQuantity: 100n * Mi },
      want: 8n * Gi - 100n * Mi,
    },
    {
      name: "inactive file is added back because the kernel compares against usage",
      input: { capacity: 8n * Gi, workingSet: 5n * Gi, usage: 7n * Gi, evictionQuantity: 100n * Mi },
      want: 10n * Gi - 100n * Mi,
    },
    {
      name: "10% of a 10 GiB node with 1 GiB inactive",
      input: { capacity: 10n * Gi, workingSet: 3n * Gi, usage: 4n * Gi, evictionQuantity: Gi },
      want: 10n * Gi,
    },
    {
      name: "odd byte counts stay exact",
      input: {
        capacity: 1_000_000_007n,
        workingSet: 123_456_789n,
        usage: 223_456_790n,
        evictionQuantity: 7n,
      },
      want: 1_100_000_001n,
    },
    {
      name: "working set above usage gives the same signed result as upstream's int64 wrap",
      input: { capacity: Gi, workingSet: 600n * Mi, usage: 500n * Mi, evictionQuantity: 100n * Mi },
      want: Gi - 200n * Mi,
    },
    {
      name: "eviction quantity above capacity goes negative (rearm refuses it)",
      input: { capacity: Gi, workingSet: Gi, usage: Gi, evictionQuantity: 2n * Gi },
      want: -Gi,
    },
  ];
  for (const c of cases) test(c.name, () => assert.equal(memcgThreshold(c.input), c.want));
});

describe("memoryThresholdArming", () => {
  const r = buildEvictionConfig({ config: { evictionHard: { "memory.available": "100Mi" } } });
  assert.ok(r.ok);
  const [memory, allocatable] = r.config.thresholds;
  assert.ok(memory !== undefined && allocatable !== undefined);
  const summary = (node: Partial<NodeSummary["node"]>): NodeSummary => ({
    node: { systemContainers: [], ...node },
    pods: [],
  });

  test("node memory: 100Mi of 10 GiB; met above 10 GiB − 100Mi of working set; the usage threshold adds inactive_file back", () => {
    const s = summary({ memory: { availableBytes: 7n * Gi, workingSetBytes: 3n * Gi, usageBytes: 4n * Gi } });
    assert.deepEqual(memoryThresholdArming(memory, s), {
      evictionQuantity: 100n * Mi,
      workingSetLimit: 10n * Gi - 100n * Mi,
      usageThreshold: 11n * Gi - 100n * Mi,
    });
  });

  test("a percentage is taken of capacity with the kubelet's float32 arithmetic", () => {
    const r10 = buildEvictionConfig({ config: { evictionHard: { "memory.available": "10%" } } });
    assert.ok(r10.ok && r10.config.thresholds[0] !== undefined);
    const s = summary({ memory: { availableBytes: 7n * Gi, workingSetBytes: 3n * Gi, usageBytes: 3n * Gi } });
    // float32(0.1) × 10 GiB = 1073741840, 16 bytes more than 1 GiB, as upstream.
    assert.equal(memoryThresholdArming(r10.config.thresholds[0], s)?.evictionQuantity, 1073741840n);
  });

  test("allocatable memory reads the pods system container", () => {
    const s = summary({
      memory: { availableBytes: 7n * Gi, workingSetBytes: 3n * Gi, usageBytes: 4n * Gi },
      systemContainers: [
        { name: "pods", memory: { availableBytes: Gi, workingSetBytes: Gi, usageBytes: Gi } },
      ],
    });
    assert.equal(memoryThresholdArming(allocatable, s)?.workingSetLimit, 2n * Gi - 100n * Mi);
  });

  test("incomplete stats are not armed from", () => {
    assert.equal(
      memoryThresholdArming(memory, summary({ memory: { availableBytes: Gi, workingSetBytes: Gi } })),
      undefined,
    );
    assert.equal(
      memoryThresholdArming(
        allocatable,
        summary({ memory: { availableBytes: Gi, workingSetBytes: Gi, usageBytes: Gi } }),
      ),
      undefined,
    );
  });
});
