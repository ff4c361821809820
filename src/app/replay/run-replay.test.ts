import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { loadScenarioFile, loadScenarioText } from "../../formats/scenario/load-scenario.js";
import { stepRecord } from "./records.js";
import { planReplay, Replayer, runReplay, type ReplayPlan, type StepOutcome } from "./run-replay.js";
import type { Scenario } from "./scenario.js";

const EXAMPLES = fileURLToPath(new URL("../../../examples/", import.meta.url)).replace("/dist/", "/");

async function scenarioOf(yaml: string): Promise<Scenario> {
  const r = await loadScenarioText(yaml, "t.yaml", process.cwd());
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.scenario;
}

const records = (outcomes: readonly StepOutcome[]): string[] =>
  outcomes.map((o) =>
    JSON.stringify(stepRecord(o), (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)),
  );

/** A split-filesystem summary: containerfs differs from imagefs, which differs from nodefs. */
const SPLIT = `{node: {fs: {availableBytes: 50, capacityBytes: 100}, runtime: {imageFs: {availableBytes: 70, capacityBytes: 200}, containerFs: {availableBytes: 30, capacityBytes: 300}}}}`;

describe("Replayer", () => {
  for (const name of readdirSync(EXAMPLES).filter((f) => f.endsWith(".yaml"))) {
    test(`step by step = the whole scenario at once: ${name}`, async () => {
      const loaded = await loadScenarioFile(join(EXAMPLES, name));
      assert.ok(loaded.ok);
      const { scenario } = loaded;
      const plan = planReplay(scenario);
      const whole: StepOutcome[] = [];
      runReplay(scenario, plan, (o) => whole.push(o));
      const stepwise: StepOutcome[] = [];
      const plans: ReplayPlan[] = [];
      const replayer = new Replayer(scenario, (o, p) => {
        stepwise.push(o);
        plans.push(p);
      });
      for (const s of scenario.steps) replayer.step(s);
      assert.deepEqual(replayer.end(), plan, "the plan found as the steps come is the plan of the whole");
      assert.equal(stepwise.length, scenario.steps.length);
      assert.deepEqual(records(stepwise), records(whole));
      for (const p of plans) assert.deepEqual(p, plan);
    });
  }

  test("steps before the first summary wait for it: the layout comes from that summary", async () => {
    const scenario = await scenarioOf(
      `steps:\n  - at: 0s\n  - at: 10s\n  - at: 20s\n    summary: ${SPLIT}\n  - at: 30s\n`,
    );
    const seen: [number, string][] = [];
    const replayer = new Replayer(scenario, (o, p) => seen.push([o.step.index, p.layout]));
    replayer.step(scenario.steps[0]!);
    replayer.step(scenario.steps[1]!);
    assert.deepEqual(seen, [], "held until the layout is known");
    assert.equal(replayer.plan, undefined);
    replayer.step(scenario.steps[2]!);
    assert.deepEqual(seen, [
      [0, "split"],
      [1, "split"],
      [2, "split"],
    ]);
    replayer.step(scenario.steps[3]!);
    assert.equal(replayer.end().layout, "split");
    assert.equal(seen.length, 4);
  });

  test("without any summary, end() replays the held steps on a single filesystem", async () => {
    const scenario = await scenarioOf("steps:\n  - at: 0s\n  - at: 10s\n");
    const seen: number[] = [];
    const replayer = new Replayer(scenario, (o) => seen.push(o.step.index));
    for (const s of scenario.steps) replayer.step(s);
    assert.deepEqual(seen, []);
    assert.equal(replayer.end().layout, "single");
    assert.deepEqual(seen, [0, 1]);
  });

  test("filesystems in the header: nothing is held", async () => {
    const scenario = await scenarioOf(
      `filesystems: dedicated\nsteps:\n  - at: 0s\n  - at: 10s\n    summary: ${SPLIT}\n`,
    );
    const seen: string[] = [];
    const replayer = new Replayer(scenario, (_o, p) => seen.push(p.layout));
    replayer.step(scenario.steps[0]!);
    assert.deepEqual(seen, ["dedicated"]);
  });
});
