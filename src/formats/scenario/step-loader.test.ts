import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { IssueList, type Issue } from "../../core/issues.js";
import type { Pod } from "../../core/model.js";
import { decodePodList } from "../../core/pod/decode-pod.js";
import { ReferencedFiles } from "./referenced-files.js";
import { StepLoader } from "./step-loader.js";

const dir = mkdtempSync(join(tmpdir(), "evictd-step-loader-"));
after(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, "good.json"), JSON.stringify({ node: { memory: { availableBytes: 1024 } } }));
writeFileSync(join(dir, "bad.json"), JSON.stringify({ node: { memory: { availableBytes: -1 } } }));

function loader(initialPods?: readonly Pod[]): { loader: StepLoader; external: Issue[] } {
  const external: Issue[] = [];
  return { loader: new StepLoader(new ReferencedFiles(dir, external), initialPods), external };
}

const manifest = (name: string, uid: string, memory = "100Mi"): object => ({
  metadata: { name, uid },
  spec: { containers: [{ name: "c", resources: { requests: { memory } } }] },
});

describe("StepLoader.load", () => {
  const cases: { name: string; raw: unknown; errors: string[]; warnings?: string[] }[] = [
    { name: "a minimal step", raw: { at: "1m30s" }, errors: [] },
    { name: "at: 0 as a number", raw: { at: 0 }, errors: [] },
    { name: "not a mapping", raw: ["at"], errors: ["steps[4]"] },
    { name: "at missing", raw: {}, errors: ["steps[4].at"] },
    { name: "at not a duration", raw: { at: "soon" }, errors: ["steps[4].at"] },
    { name: "at negative", raw: { at: "-1s" }, errors: ["steps[4].at"] },
    {
      name: "an inline summary with a bad counter",
      raw: { at: "0s", summary: { node: { fs: { inodes: "many" } } } },
      errors: ["steps[4].summary.node.fs.inodes"],
    },
    {
      name: "reclaimErrors with an unknown function",
      raw: { at: "0s", reclaimErrors: { kernel: "x" } },
      errors: ["steps[4].reclaimErrors.kernel"],
    },
    {
      name: "killFailures not a list of strings",
      raw: { at: "0s", killFailures: [1] },
      errors: ["steps[4].killFailures"],
    },
    {
      name: "addPods with a bad pod",
      raw: { at: "0s", addPods: [{ spec: { containers: [{ name: "c" }] } }] },
      errors: ["steps[4].addPods[0].metadata.name"],
    },
    {
      name: "updatePods with a bad pod",
      raw: { at: "0s", updatePods: [{ metadata: { name: "a" }, spec: { containers: "c" } }] },
      errors: ["steps[4].updatePods[0].spec.containers"],
    },
    {
      name: "nodeMemoryViews with a bad byte count",
      raw: {
        at: "0s",
        nodeMemoryViews: {
          capacityBytes: 1024,
          kubelet: { usageFrom: "anon + file", workingSetBytes: 1, availableBytes: -1 },
        },
      },
      errors: ["steps[4].nodeMemoryViews.kubelet.availableBytes"],
    },
    {
      name: "nodeMemoryViews (evictd's) is a known field",
      raw: {
        at: "0s",
        nodeMemoryViews: {
          capacityBytes: 1024,
          kubelet: { usageFrom: "anon + file", workingSetBytes: 1, availableBytes: 1023 },
        },
      },
      errors: [],
    },
    {
      name: "an unknown field is only a warning",
      raw: { at: "0s", colour: "red" },
      errors: [],
      warnings: ["steps[4].colour"],
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const issues = new IssueList();
      const step = await loader().loader.load(c.raw, 4, issues);
      assert.deepEqual(
        issues.errors.map((i) => i.path),
        c.errors,
      );
      assert.deepEqual(
        issues.warnings.map((i) => i.path),
        c.warnings ?? [],
      );
      assert.equal(step === undefined, c.errors.length > 0, "a step with an error is never handed on");
      if (step !== undefined) assert.equal(step.index, 4);
    });
  }

  test("decodes every field", async () => {
    const issues = new IssueList();
    const step = await loader().loader.load(
      {
        at: "2m",
        summary: { node: {} },
        afterReclaim: "good.json",
        reclaimErrors: { images: "boom" },
        killFailures: ["default/a"],
        addPods: [{ metadata: { name: "a" }, spec: { containers: [{ name: "c" }] } }],
        updatePods: [manifest("a", "default/a", "1Gi")],
        removePods: ["default/b"],
        admit: [{ metadata: { name: "c" }, spec: { containers: [{ name: "c" }] } }],
      },
      0,
      issues,
    );
    assert.deepEqual(issues.items, []);
    assert.ok(step !== undefined);
    assert.equal(step.atMs, 120_000);
    assert.deepEqual(step.summary, { raw: { node: {} }, path: "steps[0].summary" });
    assert.deepEqual(step.afterReclaim?.raw, { node: { memory: { availableBytes: 1024 } } });
    assert.deepEqual(step.reclaimErrors, { images: "boom" });
    assert.deepEqual([step.killFailures, step.removePods], [["default/a"], ["default/b"]]);
    assert.deepEqual(
      [step.addPods.map((p) => p.key), step.updatePods.map((p) => p.key), step.admit.map((p) => p.key)],
      [["default/a"], ["default/a"], ["default/c"]],
    );
  });

  test("updatePods names pods defined before (pods, earlier or this step's addPods); an unknown UID is an error", async () => {
    const initial = decodePodList([manifest("web", "u-web")], "pods", new IssueList());
    const { loader: l } = loader(initial);
    const issues = new IssueList();
    const first = await l.load(
      { at: "0s", addPods: [manifest("db", "u-db")], updatePods: [manifest("web", "u-web", "1Gi")] },
      0,
      issues,
    );
    const second = await l.load(
      { at: "10s", updatePods: { kind: "PodList", items: [manifest("db", "u-db", "2Gi")] } },
      1,
      issues,
    );
    assert.deepEqual(issues.items, []);
    assert.deepEqual(
      [first?.updatePods.map((p) => p.uid), second?.updatePods.map((p) => p.uid)],
      [["u-web"], ["u-db"]],
    );
    const later = new IssueList();
    const third = await l.load(
      { at: "20s", updatePods: [manifest("web", "u-web"), manifest("web-2", "u-new")] },
      2,
      later,
    );
    assert.equal(third, undefined, "a step with an error is never handed on");
    assert.deepEqual(
      later.items.map((i) => [i.severity, i.path, i.code]),
      [["error", "steps[2].updatePods[1]", "unknown-pod"]],
    );
    assert.match(
      later.items[0]?.message ?? "",
      /no pod with uid "u-new" \(default\/web-2\) was defined before/,
    );
  });

  test("without the header's pods (a header in error), updatePods is not checked against them", async () => {
    const issues = new IssueList();
    const step = await loader().loader.load({ at: "0s", updatePods: [manifest("x", "u-x")] }, 0, issues);
    assert.deepEqual(issues.items, []);
    assert.equal(step?.updatePods.length, 1);
  });

  test("at must increase from step to step; a bad at is not compared", async () => {
    const { loader: l } = loader();
    const issues = new IssueList();
    await l.load({ at: "10s" }, 0, issues);
    await l.load({ at: "bad" }, 1, issues);
    await l.load({ at: "10s" }, 2, issues);
    await l.load({ at: "11s" }, 3, issues);
    assert.deepEqual(
      issues.errors.map((i) => [i.path, i.code]),
      [
        ["steps[1].at", "invalid-duration"],
        ["steps[2].at", "order"],
      ],
    );
  });

  test("a referenced summary file: read once, its problems located in it, the steps refused", async () => {
    const { loader: l, external } = loader();
    const issues = new IssueList();
    assert.equal(await l.load({ at: "0s", summary: "bad.json" }, 0, issues), undefined);
    assert.equal(await l.load({ at: "1s", summary: "bad.json" }, 1, issues), undefined);
    assert.equal(await l.load({ at: "2s", summary: "missing.json" }, 2, issues), undefined);
    assert.deepEqual(issues.items, [], "problems inside files go with the files");
    assert.deepEqual(
      external.map((i) => i.path),
      ["steps[0].summary.node.memory.availableBytes", "steps[2].summary"],
    );
    assert.ok(
      external[0]?.file?.endsWith("bad.json") === true && external[0].line === 1,
      "located in bad.json",
    );
    assert.equal(external[1]?.code, "file-not-found");
    assert.equal(external.length, 2, "bad.json is read and reported once");
  });
});
