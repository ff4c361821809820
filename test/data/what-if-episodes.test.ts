/**
 * The what-if replay on the trace generator's memory episodes (a 110-pod node whose kubelet admits
 * pods as the kubelet does): under the trace's own configuration it decides exactly what the
 * recording did and loses nothing; under a stricter one the counterfactual removes the pressure
 * its evictions relieved, where the open-loop replay keeps seeing the evicted pods' memory and
 * evicts on and on; under a looser one the pods the recording lost are diverged.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { buildConfigVariant } from "../../src/core/config/build-config-variant.js";
import { planReplay, runReplay, type ReplayOptions } from "../../src/app/replay/run-replay.js";
import type { Scenario } from "../../src/app/replay/scenario.js";
import { loadScenarioText } from "../../src/formats/scenario/load-scenario.js";
import { generateTrace } from "../../tools/trace-generator/generate-trace.js";

interface Tally {
  readonly evictions: number;
  /** Steps reporting MemoryPressure. */
  readonly pressureSteps: number;
  readonly divergedPods: number;
  readonly divergedSteps: number;
}

function tally(scenario: Scenario, options: ReplayOptions): Tally {
  let evictions = 0;
  let pressureSteps = 0;
  let divergedSteps = 0;
  const diverged = new Set<string>();
  runReplay(
    scenario,
    planReplay(scenario),
    (o) => {
      evictions += o.report.evictions.length;
      if (o.report.conditions.includes("MemoryPressure")) pressureSteps++;
      if ((o.whatIf?.diverged.length ?? 0) > 0) divergedSteps++;
      for (const p of o.whatIf?.diverged ?? []) diverged.add(p.uid);
    },
    options,
  );
  return { evictions, pressureSteps, divergedPods: diverged.size, divergedSteps };
}

/** `scenario` under its own configuration with `evictionHard.memory.available` set to `value`. */
function withHardMemory(scenario: Scenario, value: string): Scenario {
  const built = buildConfigVariant(
    scenario.configSource?.document,
    scenario.configSource?.flags ?? [],
    [
      {
        field: "evictionHard",
        key: "memory.available",
        value,
        text: `evictionHard.memory.available=${value}`,
      },
    ],
    (s) => s.text,
  );
  assert.ok(built.ok, JSON.stringify(!built.ok && built.issues));
  return { ...scenario, config: built.config };
}

describe("what-if replay on generated memory episodes", () => {
  test("own configuration: the recording's decisions, nothing diverged; stricter: pressure relieved; looser: diverged", async (t) => {
    // The first episode of the node's history (from 1h40m), 110 pods, BestEffort replacements
    // held back while MemoryPressure lasts, as the kubelet's admission would.
    const { text, info } = generateTrace({
      steps: 900,
      fromStep: 500,
      pods: 110,
      seed: 3,
      // A lean recording (namespace/name and working set per pod) keeps the document small.
      richness: "recorded",
      admission: "kubelet",
    });
    assert.ok(
      info.predictedEvictions.length >= 2,
      `${info.predictedEvictions.length} evictions in the episode`,
    );
    const loaded = await loadScenarioText(text, "episode.json", ".");
    assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.issues.slice(0, 3)));
    const scenario = loaded.scenario;

    const own = tally(scenario, { whatIf: true });
    assert.equal(own.evictions, info.predictedEvictions.length, "the recording's own evictions");
    assert.equal(own.divergedPods, 0, "the recording lost no pod its own configuration kept");
    assert.deepEqual(tally(scenario, {}).evictions, own.evictions, "open loop agrees on its own config");

    // 2Gi instead of 500Mi: every eviction frees memory the recording still shows in use.
    const strict = withHardMemory(scenario, "2Gi");
    const openLoop = tally(strict, {});
    const whatIf = tally(strict, { whatIf: true });
    assert.ok(
      whatIf.evictions < openLoop.evictions / 2,
      `what-if ${whatIf.evictions} evictions against ${openLoop.evictions} open loop`,
    );
    assert.ok(
      whatIf.pressureSteps < openLoop.pressureSteps,
      `what-if ${whatIf.pressureSteps} steps under MemoryPressure against ${openLoop.pressureSteps}`,
    );
    t.diagnostic(
      `own ${JSON.stringify(own)}; 2Gi open loop ${JSON.stringify(openLoop)}, what-if ${JSON.stringify(whatIf)}`,
    );

    // 50Mi: the pods the recording lost to its own 500Mi threshold are kept, and their future unknown.
    const loose = tally(withHardMemory(scenario, "50Mi"), { whatIf: true });
    assert.ok(loose.evictions < own.evictions, `${loose.evictions} evictions under 50Mi`);
    assert.ok(loose.divergedPods > 0 && loose.divergedSteps > 0, JSON.stringify(loose));
    t.diagnostic(`50Mi what-if ${JSON.stringify(loose)}`);
  });
});
