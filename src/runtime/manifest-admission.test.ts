/** What the node does with what its manifests say, against a runtime that records what it is asked. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Issue } from "../core/issues.js";
import { IssueList } from "../core/issues.js";
import type { NodeCondition } from "../core/model.js";
import { decodePod } from "../core/pod/decode-pod.js";
import type { ManifestProblem } from "../app/node-view/snapshot.js";
import { manifestAdmission, type ManifestPodRuntime } from "./manifest-admission.js";
import type { GivenPodStatus } from "./pod-runtime.js";
import type { RunnablePod } from "./runnable-pod.js";

function pod(name: string, spec: Record<string, unknown> = {}): RunnablePod {
  const issues = new IssueList();
  const p = decodePod(
    {
      metadata: { name, namespace: "shop", uid: `uid-${name}` },
      spec: { containers: [{ name: "c" }], ...spec },
    },
    "pod",
    issues,
  );
  assert.deepEqual(issues.items, []);
  assert.ok(p);
  return p;
}

interface Line {
  readonly level: "info" | "warn" | "error";
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

/** A runtime that records its calls in order; `fail` makes start reject. */
class RecordingRuntime implements ManifestPodRuntime {
  readonly calls: string[] = [];
  readonly statuses: GivenPodStatus[] = [];
  running: RunnablePod[] = [];
  fail = false;

  async start(p: RunnablePod): Promise<void> {
    await Promise.resolve();
    this.calls.push(`start ${p.name}`);
    if (this.fail) throw new Error("no cgroup");
  }

  async reject(p: RunnablePod, status: GivenPodStatus): Promise<void> {
    await Promise.resolve();
    this.calls.push(`reject ${p.name}`);
    this.statuses.push(status);
  }

  async kill(p: RunnablePod, gracePeriodSeconds: number, status: GivenPodStatus) {
    await Promise.resolve();
    this.calls.push(`kill ${p.name} ${gracePeriodSeconds}s`);
    this.statuses.push(status);
    return {
      terminatedAt: 0,
      done: nextTurn().then(() => {
        this.calls.push(`gone ${p.name}`);
        return { ok: true, stuck: [] };
      }),
    };
  }

  async forget(p: RunnablePod): Promise<void> {
    await Promise.resolve();
    this.calls.push(`forget ${p.name}`);
  }

  nonTerminatedPods(): RunnablePod[] {
    return this.running;
  }
}

function setUp(options: { conditions?: readonly NodeCondition[]; maxPods?: number } = {}) {
  const runtime = new RecordingRuntime();
  const lines: Line[] = [];
  const problems: (readonly ManifestProblem[])[] = [];
  const logger = {
    info: (fields: Record<string, unknown>, message: string) =>
      lines.push({ level: "info", fields, message }),
    warn: (fields: Record<string, unknown>, message: string) =>
      lines.push({ level: "warn", fields, message }),
    error: (fields: Record<string, unknown>, message: string) =>
      lines.push({ level: "error", fields, message }),
  };
  const listener = manifestAdmission({
    runtime,
    allocatable: { memoryBytes: 8n << 30n, pods: options.maxPods ?? 110 },
    conditions: () => options.conditions ?? [],
    logger,
    onManifestProblems: (p) => problems.push(p),
  });
  return { runtime, lines, problems, listener };
}

/** Lets every step a listener set off run to its end (the fake runtime answers within a few turns). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await nextTurn();
}

describe("manifestAdmission", () => {
  test("an admitted pod is started, and nothing is logged", async () => {
    const { runtime, lines, listener } = setUp();
    listener.added(pod("web"));
    await settle();
    assert.deepEqual(runtime.calls, ["start web"]);
    assert.deepEqual(lines, []);
  });

  test("under a condition, a pod is rejected with the admission's message, and the rejection is logged", async () => {
    const { runtime, lines, listener } = setUp({ conditions: ["DiskPressure"] });
    listener.added(pod("web"));
    await settle();
    assert.deepEqual(runtime.calls, ["reject web"]);
    assert.deepEqual(runtime.statuses, [
      {
        phase: "Failed",
        reason: "Evicted",
        message: "Pod was rejected: The node had condition: [DiskPressure]. ",
        conditions: [],
      },
    ]);
    assert.deepEqual(lines, [
      {
        level: "warn",
        fields: { pod: "shop/web", reason: "Evicted" },
        message: "rejected shop/web: The node had condition: [DiskPressure].",
      },
    ]);
  });

  test("the pods not yet terminated count against maxPods (OutOfpods)", async () => {
    const { runtime, lines, listener } = setUp({ maxPods: 1 });
    runtime.running = [pod("db")];
    listener.added(pod("web"));
    await settle();
    assert.deepEqual(runtime.calls, ["reject web"]);
    assert.equal(runtime.statuses[0]?.reason, "OutOfpods");
    assert.equal(lines[0]?.fields["reason"], "OutOfpods");
  });

  test("a pod that cannot start is logged", async () => {
    const { runtime, lines, listener } = setUp();
    runtime.fail = true;
    listener.added(pod("web"));
    await settle();
    assert.deepEqual(lines, [
      { level: "error", fields: { pod: "shop/web", err: "Error: no cgroup" }, message: "cannot start pod" },
    ]);
  });

  test("a removed pod is stopped with its own grace period, waited for, then forgotten", async () => {
    const { runtime, lines, listener } = setUp();
    listener.removed(pod("web", { terminationGracePeriodSeconds: 7 }));
    await settle();
    assert.deepEqual(runtime.calls, ["kill web 7s", "gone web", "forget web"]);
    assert.deepEqual(runtime.statuses, [
      { phase: "Failed", reason: "Deleted", message: "The pod manifest was removed", conditions: [] },
    ]);
    assert.deepEqual(lines, []);
  });

  test("a changed pod is stopped and forgotten, then its new manifest started, without admission", async () => {
    const { runtime, lines, listener } = setUp({ conditions: ["DiskPressure"] });
    const previous = pod("web", { terminationGracePeriodSeconds: 3 });
    const next = pod("web", { terminationGracePeriodSeconds: 4 });
    listener.changed(previous, next);
    await settle();
    assert.deepEqual(runtime.calls, ["kill web 3s", "gone web", "forget web", "start web"]);
    assert.deepEqual(runtime.statuses, [
      { phase: "Failed", reason: "Replaced", message: "The pod manifest changed", conditions: [] },
    ]);
    assert.deepEqual(lines, [
      { level: "info", fields: { pod: "shop/web" }, message: "manifest changed: restarting the pod" },
    ]);
  });

  test("manifest problems reach the callback, and each file's log line shows its first three", () => {
    const { problems, lines, listener } = setUp();
    const issue = (severity: "error" | "warning", n: number): Issue => ({
      severity,
      path: `spec.containers[${n}]`,
      message: `problem ${n}`,
      code: "invalid-value",
      line: n,
    });
    listener.errors?.([
      { file: "/m/a.yaml", issues: [issue("warning", 1), issue("error", 2)] },
      { file: "/m/b.yaml", issues: [1, 2, 3, 4, 5].map((n) => issue("error", n)) },
    ]);
    listener.errors?.([]);
    assert.deepEqual(problems, [
      [
        {
          file: "/m/a.yaml",
          errors: ["line 2: spec.containers[2]: problem 2"],
          warnings: ["line 1: spec.containers[1]: problem 1"],
        },
        {
          file: "/m/b.yaml",
          errors: [1, 2, 3, 4, 5].map((n) => `line ${n}: spec.containers[${n}]: problem ${n}`),
          warnings: [],
        },
      ],
      [],
    ]);
    assert.deepEqual(lines, [
      {
        level: "warn",
        fields: { file: "/m/a.yaml" },
        message:
          "bad pod manifest: line 2: spec.containers[2]: problem 2; line 1: spec.containers[1]: problem 1",
      },
      {
        level: "warn",
        fields: { file: "/m/b.yaml" },
        message:
          "bad pod manifest: line 1: spec.containers[1]: problem 1; line 2: spec.containers[2]: problem 2; line 3: spec.containers[3]: problem 3; … 2 more in /status",
      },
    ]);
  });
});
