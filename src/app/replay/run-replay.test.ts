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

describe("updatePods (an in-place resize seen while recording)", () => {
  const pod = (name: string, memory: string, allocated?: string): string =>
    `{metadata: {name: ${name}, uid: u-${name}}, spec: {containers: [{name: app, resources: {requests: {memory: ${memory}}}}]}` +
    (allocated !== undefined
      ? `, status: {phase: Running, containerStatuses: [{name: app, allocatedResources: {memory: ${allocated}}}]}}`
      : "}");
  // 500Mi available under a 1Gi threshold; both pods use 300Mi.
  const summary = `{node: {memory: {availableBytes: 524288000, workingSetBytes: 3221225472}}, pods: [
      {podRef: {name: a, namespace: default, uid: u-a}, memory: {workingSetBytes: 314572800}},
      {podRef: {name: b, namespace: default, uid: u-b}, memory: {workingSetBytes: 314572800}}]}`;
  const scenario = (update: string): string =>
    [
      "config: {evictionHard: {memory.available: 1Gi}}",
      "evictedPods: keep",
      `pods: [${pod("a", "100Mi")}, ${pod("b", "400Mi")}]`,
      "steps:",
      `  - at: 0s\n    summary: ${summary}`,
      `  - at: 10s\n    summary: ${summary}\n    updatePods: [${update}]`,
      `  - at: 20s\n    summary: ${summary}`,
    ].join("\n");

  test("the ranking changes after the update: the pod allocated 1Gi no longer exceeds its request", async () => {
    const s = await scenarioOf(scenario(pod("a", "1Gi", "1Gi")));
    const outcomes: StepOutcome[] = [];
    runReplay(s, planReplay(s), (o) => outcomes.push(o));
    assert.deepEqual(
      outcomes.map((o) => o.report.ranking?.map((p) => p.key)),
      [
        ["default/a", "default/b"],
        ["default/b", "default/a"],
        ["default/b", "default/a"],
      ],
    );
    assert.deepEqual(
      outcomes.map((o) => o.activeAfter.map((p) => p.key)),
      [
        ["default/a", "default/b"],
        ["default/a", "default/b"],
        ["default/a", "default/b"],
      ],
      "the updated pod stays active, in its place",
    );
  });

  test("an update of a pod the replay no longer has (removed, evicted) does not bring it back", async () => {
    const text = scenario(pod("a", "1Gi", "1Gi")).replace(
      "  - at: 10s\n",
      "  - at: 5s\n    removePods: [default/a]\n  - at: 10s\n",
    );
    const s = await scenarioOf(text);
    const outcomes: StepOutcome[] = [];
    runReplay(s, planReplay(s), (o) => outcomes.push(o));
    assert.deepEqual(
      outcomes.map((o) => o.activeAfter.map((p) => p.key)),
      [["default/a", "default/b"], ["default/b"], ["default/b"], ["default/b"]],
    );
  });

  test("a document naming a pod it never defined is refused, the entry named", async () => {
    const text = scenario(pod("c", "1Gi"));
    const r = await loadScenarioText(text, "t.yaml", process.cwd());
    assert.ok(!r.ok);
    const line = text.split("\n").findIndex((l) => l.includes("updatePods")) + 1;
    assert.deepEqual(
      r.issues.filter((i) => i.severity === "error").map((i) => [i.path, i.code, i.line]),
      [["steps[1].updatePods[0]", "unknown-pod", line]],
    );
  });
});
