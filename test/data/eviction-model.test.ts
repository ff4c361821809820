/**
 * The trace generator's eviction model (tools/trace-generator/eviction-model.ts) as an oracle for
 * the engine's memory path: seeded traces are generated in process, replayed through the replay
 * code, and the engine's evictions must be exactly the model's predictions, step and pod.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { planReplay, runReplay } from "../../src/app/replay/run-replay.js";
import { loadScenarioText } from "../../src/formats/scenario/load-scenario.js";
import {
  compareWithModel,
  evictionKey,
  type PredictedEviction,
} from "../../tools/trace-generator/eviction-model.js";
import { generateTrace, type TraceOptions } from "../../tools/trace-generator/generate-trace.js";

/** The engine's evictions over a replayed trace, as `evictionKey`s in step order. */
async function engineEvictions(text: string, label: string): Promise<string[]> {
  // The generated trace references no files: the base directory is never read.
  const loaded = await loadScenarioText(text, label, ".");
  if (!loaded.ok) assert.fail(`${label} rejected: ${JSON.stringify(loaded.issues.slice(0, 3))}`);
  const errors = loaded.scenario.warnings.filter((w) => w.severity === "error");
  assert.deepEqual(errors, []);
  const out: string[] = [];
  let step = 0;
  runReplay(loaded.scenario, planReplay(loaded.scenario), (o) => {
    for (const e of o.report.evictions) out.push(evictionKey(step, e.pod.key));
    step++;
  });
  assert.equal(step, loaded.scenario.steps.length, "one outcome per step");
  return out;
}

interface Case {
  readonly name: string;
  readonly options: TraceOptions;
  /** What the prediction itself must hold, so that the comparison is not vacuous. */
  readonly predicts: (p: readonly PredictedEviction[]) => void;
}

const cases: Case[] = [
  {
    name: "200 steps × 20 pods, no pressure: the engine evicts nothing either",
    options: { steps: 200, pods: 20, seed: 1, richness: "eviction" },
    predicts: (p) => assert.equal(p.length, 0),
  },
  {
    // 110 pods from step 600 of the node's history: the first memory episode, where a leaking
    // pod first crosses the soft threshold for its 90 s grace and later the hard one.
    name: "300 steps × 110 pods through a memory episode: soft, then hard evictions",
    options: { steps: 300, pods: 110, seed: 1, fromStep: 600, richness: "eviction" },
    predicts: (p) => {
      assert.ok(p.length >= 2, `at least two evictions predicted, got ${p.length}`);
      assert.ok(
        p.some((e) => e.threshold === "soft"),
        "a soft eviction is predicted",
      );
      assert.ok(
        p.some((e) => e.threshold === "hard" || e.threshold === "allocatable"),
        "a hard eviction is predicted",
      );
    },
  },
];

describe("the generator's eviction model predicts the engine's evictions", () => {
  for (const c of cases) {
    test(c.name, async () => {
      const { text, info } = generateTrace(c.options);
      c.predicts(info.predictedEvictions);
      const verdict = compareWithModel(info.predictedEvictions, await engineEvictions(text, c.name));
      assert.deepEqual(
        verdict.observed,
        verdict.predicted,
        `first difference: ${JSON.stringify(verdict.firstDifference)}`,
      );
      assert.equal(verdict.agree, true);
    });
  }
});

describe("compareWithModel", () => {
  const predicted: PredictedEviction[] = [
    { step: 3, pod: "default/a", signal: "memory.available", threshold: "soft" },
    { step: 9, pod: "default/b", signal: "memory.available", threshold: "hard" },
  ];

  test("agrees on the same evictions in the same order", () => {
    assert.equal(compareWithModel(predicted, ["3 default/a", "9 default/b"]).agree, true);
  });

  test("reports the first difference: another pod, another step, a missing or an extra eviction", () => {
    assert.deepEqual(compareWithModel(predicted, ["3 default/a", "9 default/c"]).firstDifference, {
      index: 1,
      predicted: "9 default/b",
      observed: "9 default/c",
    });
    assert.deepEqual(compareWithModel(predicted, ["4 default/a", "9 default/b"]).firstDifference, {
      index: 0,
      predicted: "3 default/a",
      observed: "4 default/a",
    });
    assert.deepEqual(compareWithModel(predicted, ["3 default/a"]).firstDifference, {
      index: 1,
      predicted: "9 default/b",
    });
    const extra = compareWithModel(predicted, ["3 default/a", "9 default/b", "12 default/c"]);
    assert.equal(extra.agree, false);
    assert.deepEqual(extra.firstDifference, { index: 2, observed: "12 default/c" });
  });
});
