import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { CellFigures, CellResult } from "./cell-result.js";
import { compareFleet } from "./fleet-comparison.js";
import { LogHistogram } from "./log-histogram.js";

const GI = 1024 ** 3;

function figures(over: Partial<CellFigures> & { memory?: number[] }): CellFigures {
  const h = new LogHistogram();
  for (const v of over.memory ?? [4 * GI]) h.add(v);
  const { memory: _memory, ...rest } = over;
  return {
    steps: 100,
    spanMs: 990_000,
    evictions: 0,
    podsEvicted: 0,
    bySignal: {},
    oomRiskSteps: 0,
    pressureMs: { MemoryPressure: 0, DiskPressure: 0, PIDPressure: 0 },
    refusedAdmissions: 0,
    divergedPods: 0,
    divergedSteps: 0,
    headroom: { "memory.available": h.toJSON() },
    memoryCapacityBytes: 64 * GI,
    allocatableBytes: 60 * GI,
    ...rest,
  };
}

const cell = (trace: string, config: string, f: CellFigures): CellResult => ({
  trace,
  config,
  node: `node-${trace}`,
  ok: true,
  figures: f,
  warnings: [],
});

/**
 * Three configurations on two nodes: `loose` never evicts but meets the OOM killer on node a;
 * `middle` evicts 3 times; `strict` evicts 2 times but gives up more allocatable memory.
 */
const CELLS: CellResult[] = [
  cell(
    "a",
    "loose",
    figures({ oomRiskSteps: 4, memory: [50 * 1024 ** 2, 2 * GI], allocatableBytes: 62 * GI }),
  ),
  cell("b", "loose", figures({ allocatableBytes: 62 * GI })),
  cell(
    "a",
    "middle",
    figures({
      evictions: 2,
      podsEvicted: 2,
      bySignal: { "memory.available": 2 },
      memory: [600 * 1024 ** 2, 3 * GI],
    }),
  ),
  cell("b", "middle", figures({ evictions: 1, podsEvicted: 1, bySignal: { "memory.available": 1 } })),
  cell(
    "a",
    "strict",
    figures({ evictions: 2, podsEvicted: 2, bySignal: { "memory.available": 2 }, allocatableBytes: 58 * GI }),
  ),
  cell("b", "strict", figures({ allocatableBytes: 58 * GI, divergedPods: 1, divergedSteps: 9 })),
];
const CONFIGS = ["loose", "middle", "strict"];
const TRACES = ["a", "b"];

describe("compareFleet", () => {
  test("one row per configuration: sums, nodes at risk, the least headroom and the worst nodes", () => {
    const c = compareFleet(CELLS, CONFIGS, TRACES, "fewest-evictions", true);
    const loose = c.configs[0];
    assert.ok(loose !== undefined);
    assert.deepEqual(
      [loose.nodes, loose.evictions, loose.oomRiskSteps, loose.oomRiskNodes, loose.allocatableBytes],
      [2, 0, 4, 1, 124 * GI],
    );
    assert.equal(loose.headroom["memory.available"]?.min, 50 * 1024 ** 2);
    assert.deepEqual(
      loose.worst.map((w) => [w.trace, w.oomRiskSteps]),
      [["a", 4]],
    );
    const middle = c.configs[1];
    assert.deepEqual(middle?.bySignal, { "memory.available": 3 });
    assert.deepEqual(
      middle?.worst.map((w) => w.trace),
      ["a", "b"],
    );
    assert.equal(c.configs[2]?.divergedPods, 1);
  });

  test("fewest evictions with no OOM-risk moment: strict; most allocatable with none: middle", () => {
    const fewest = compareFleet(CELLS, CONFIGS, TRACES, "fewest-evictions", true).recommendation;
    assert.equal(fewest?.config, "strict");
    assert.equal(fewest?.constraintMet, true);
    assert.match(fewest?.reason ?? "", /2 of 3 configurations had no OOM-risk moment/);
    assert.match(fewest?.reason ?? "", /1 pods diverged/);
    const most = compareFleet(CELLS, CONFIGS, TRACES, "most-allocatable", true).recommendation;
    assert.equal(most?.config, "middle");
  });

  test("ties on the objective go to the most allocatable memory, then the order given", () => {
    const tie = CELLS.map((c) =>
      c.config === "strict" && c.ok
        ? cell(c.trace, c.config, { ...c.figures, evictions: c.trace === "a" ? 3 : 0 })
        : c,
    );
    assert.equal(
      compareFleet(tie, CONFIGS, TRACES, "fewest-evictions", true).recommendation?.config,
      "middle",
    );
  });

  test("when every configuration meets the OOM killer: the fewest OOM-risk moments, said plainly", () => {
    const risky = CELLS.map((c) =>
      c.ok && c.trace === "b"
        ? cell(c.trace, c.config, { ...c.figures, oomRiskSteps: c.config === "middle" ? 1 : 7 })
        : c,
    );
    const r = compareFleet(risky, CONFIGS, TRACES, "fewest-evictions", true).recommendation;
    assert.equal(r?.config, "middle");
    assert.equal(r?.constraintMet, false);
    assert.match(r?.reason ?? "", /no configuration avoided OOM-risk moments/);
  });

  test("a failed cell is listed, its configuration cannot meet the constraint, and the order of the cells never matters", () => {
    const withFailure: CellResult[] = [
      ...CELLS.filter((c) => !(c.config === "strict" && c.trace === "b")),
      { trace: "b", config: "strict", node: "node-b", ok: false, problems: ["steps[3].summary: invalid"] },
    ];
    const c = compareFleet(withFailure, CONFIGS, TRACES, "fewest-evictions", true);
    assert.deepEqual(c.failures, [{ trace: "b", config: "strict", problems: ["steps[3].summary: invalid"] }]);
    assert.equal(c.configs[2]?.failed, 1);
    assert.equal(c.recommendation?.config, "middle");
    const shuffled = [...withFailure].reverse();
    assert.deepEqual(compareFleet(shuffled, CONFIGS, TRACES, "fewest-evictions", true), c);
  });
});
