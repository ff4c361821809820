// Real Summary API responses (test/fixtures/real-data/summary-*.json): read with the exact JSON reader, decode with
// no issues, keep every counter exact, and detect the filesystem layout each one describes.
import { REAL_DATA } from "../support/repo-paths.js";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseJsonExact } from "../../src/formats/json/parse-json-exact.js";
import { IssueList } from "../../src/core/issues.js";
import type { FilesystemLayout, NodeSummary, PodStats } from "../../src/core/model.js";
import { decodeSummary } from "../../src/core/summary/decode-summary.js";
import { detectFilesystemLayout } from "../../src/core/summary/detect-layout.js";
import { validateSummary } from "../../src/core/summary/validate-summary.js";

const DATA = REAL_DATA;
/** Stands in for the replay step's time: only used where a file leaves a `time` out. */
const STEP_TIME = Date.UTC(2030, 0, 1);

function read(file: string): string {
  return readFileSync(path.join(DATA, file), "utf8");
}

function load(file: string): NodeSummary {
  const issues = new IssueList();
  const summary = decodeSummary(parseJsonExact(read(file)), file, STEP_TIME, issues);
  assert.deepEqual(issues.items, [], `${file} should decode without issues`);
  assert.ok(summary !== undefined);
  return summary;
}

function pod(summary: NodeSummary, name: string): PodStats {
  const found = summary.pods.find((p) => p.podRef.name === name);
  assert.ok(found, `pod ${name} not found`);
  return found;
}

describe("real Summary API responses", () => {
  const expected: { file: string; pods: number; layout: FilesystemLayout; why: string }[] = [
    {
      file: "summary-1.json",
      pods: 17,
      layout: "single",
      why: "containerFs equals imageFs (not split); imageFs has node.fs's capacity, free bytes and inodes (only the per-view used figures differ)",
    },
    {
      file: "summary-2.json",
      pods: 17,
      layout: "single",
      why: "containerFs equals imageFs; imageFs.inodesUsed 77420 vs node.fs 319790 is a per-view figure, the filesystem-wide ones match",
    },
    {
      file: "summary-3.json",
      pods: 8,
      layout: "single",
      why: "imageFs matches node.fs on available, capacity and all three inode figures (only usedBytes differs)",
    },
    {
      file: "summary-4.json",
      pods: 1,
      layout: "single",
      why: "imageFs matches node.fs on the compared fields (usedBytes 860204379 vs 2514276352 is not compared)",
    },
    {
      file: "summary-5.json",
      pods: 1,
      layout: "single",
      why: "as summary-4, with inodesFree 2^64-1 on both sides",
    },
    {
      file: "summary-6.json",
      pods: 1,
      layout: "single",
      why: "imageFs.inodesUsed 8769 vs node.fs 1399256 is a per-view figure; capacity, free bytes and inodes match",
    },
    {
      file: "summary-7.json",
      pods: 7,
      layout: "single",
      why: "same node stats as summary-6",
    },
  ];

  for (const e of expected) {
    test(`${e.file}: ${e.pods} pods, layout ${e.layout} (${e.why})`, () => {
      const summary = load(e.file);
      assert.equal(summary.pods.length, e.pods);
      assert.equal(detectFilesystemLayout(summary), e.layout);
    });
  }

  test("summary-1 (Kubernetes 1.35): node memory, the pods cgroup, rlimit, a pod", () => {
    const summary = load("summary-1.json");
    const t = Date.parse("2026-06-26T10:14:35Z");
    const zero = { total: 0n, avg10: 0, avg60: 0, avg300: 0 };
    assert.equal(summary.node.nodeName, "datagen-1-35");
    assert.deepEqual(summary.node.memory, {
      time: t,
      availableBytes: 7299776512n,
      workingSetBytes: 917110784n,
      usageBytes: 3080323072n,
      psi: { full: { ...zero, total: 2n }, some: { ...zero, total: 15n } },
    });
    assert.deepEqual(
      summary.node.systemContainers.map((c) => c.name),
      ["kubelet", "pods"],
    );
    assert.deepEqual(summary.node.systemContainers[1]?.memory, {
      time: t,
      availableBytes: 7688695808n,
      workingSetBytes: 528191488n,
      usageBytes: 545718272n,
      psi: { full: zero, some: zero },
    });
    assert.deepEqual(summary.node.rlimit, {
      time: Date.parse("2026-06-26T10:14:40Z"),
      maxpid: 62639n,
      curproc: 814n,
    });
    assert.deepEqual(summary.node.runtime?.containerFs, summary.node.runtime?.imageFs);
    const first = pod(summary, "kube-controller-manager-datagen-1-35");
    assert.deepEqual(first.podRef, {
      name: "kube-controller-manager-datagen-1-35",
      namespace: "kube-system",
      uid: "e9afcd8d3c942968802548f9a24d942a",
    });
    assert.equal(first.ephemeralStorage?.usedBytes, 122880n);
    assert.equal(first.ephemeralStorage?.inodesUsed, 25n);
    assert.equal(first.processCount, 1n);
    assert.equal(first.containers[0]?.rootfs?.usedBytes, 86016n);
  });

  test("summary-1 (Kubernetes 1.35): pressure (cpu, memory, io) and swap, exactly as in the file", () => {
    const summary = load("summary-1.json");
    const node = summary.node;
    assert.deepEqual(node.cpu?.psi, {
      full: { total: 32884223n, avg10: 72.63, avg60: 36.72, avg300: 10 },
      some: { total: 34335662n, avg10: 75.83, avg60: 38.43, avg300: 10.46 },
    });
    assert.deepEqual(node.io, {
      time: Date.parse("2026-06-26T10:14:35Z"),
      psi: {
        full: { total: 156559n, avg10: 0, avg60: 0, avg300: 0 },
        some: { total: 171148n, avg10: 0, avg60: 0, avg300: 0 },
      },
    });
    assert.deepEqual(node.swap, {
      time: Date.parse("2026-06-26T10:14:35Z"),
      swapAvailableBytes: 1073737728n,
      swapUsageBytes: 0n,
    });
    const pods = node.systemContainers.find((c) => c.name === "pods");
    assert.deepEqual(pods?.cpu?.psi?.some, { total: 35569919n, avg10: 76.64, avg60: 38.86, avg300: 10.64 });
    assert.deepEqual(pods?.io?.psi?.full, { total: 231209n, avg10: 0.01, avg60: 0.09, avg300: 0.03 });
    assert.deepEqual(pods?.swap, { time: Date.parse("2026-06-26T10:14:35Z"), swapUsageBytes: 0n });
    const first = pod(summary, "kube-controller-manager-datagen-1-35");
    assert.deepEqual(first.cpu?.psi?.full, { total: 168398n, avg10: 0, avg60: 0, avg300: 0 });
    assert.equal(first.cpu?.psi?.some?.total, 171305n);
    assert.deepEqual(first.swap, { time: Date.parse("2026-06-26T10:14:38Z"), swapUsageBytes: 0n });
    const container = first.containers[0];
    assert.equal(container?.name, "kube-controller-manager");
    assert.deepEqual(container?.cpu?.psi?.some, { total: 179184n, avg10: 0, avg60: 0, avg300: 0 });
    assert.deepEqual(container?.swap, {
      time: Date.parse("2026-06-26T10:14:29Z"),
      swapAvailableBytes: 0n,
      swapUsageBytes: 0n,
    });
  });

  test("summary-4 (2017 GKE): fs stats without time take the step's time; userDefinedMetrics: null", () => {
    const summary = load("summary-4.json");
    assert.equal(summary.node.fs?.time, STEP_TIME);
    assert.equal(summary.node.runtime?.imageFs?.time, STEP_TIME);
    assert.equal(summary.node.memory?.time, Date.parse("2017-04-20T08:06:41Z"));
    assert.equal(summary.node.fs?.availableBytes, 98727014400n);
    assert.equal(summary.node.rlimit, undefined);
    const nginx = pod(summary, "nginx-deployment-2303442956-pcqfc");
    assert.equal(nginx.memory, undefined, "no pod-level memory in 2017");
    assert.deepEqual(nginx.volumes, [{ name: "default-token-sg8x5", usedBytes: 12288n, inodesUsed: 9n }]);
    assert.equal(nginx.containers[0]?.logs?.time, STEP_TIME);
  });

  test("summary-5: inodesFree 18446744073709551615 stays exact", () => {
    const summary = load("summary-5.json");
    assert.equal(summary.node.fs?.inodesFree, 18446744073709551615n);
    assert.equal(summary.node.runtime?.imageFs?.inodesFree, 18446744073709551615n);
    assert.deepEqual(
      pod(summary, "nginx-deployment-2303442956-pcqfc").containers.map((c) => c.name),
      ["nginx", "sidecar"],
    );
  });

  test("summary-5 through plain JSON.parse is rejected, not silently rounded", () => {
    const issues = new IssueList();
    validateSummary(JSON.parse(read("summary-5.json")), "summary-5.json", issues);
    assert.deepEqual(
      issues.items.map((i) => i.path),
      ["summary-5.json.node.fs.inodesFree", "summary-5.json.node.runtime.imageFs.inodesFree"],
    );
  });

  test("summary-7: pods with missing uid, memory and working set", () => {
    const summary = load("summary-7.json");
    assert.equal(pod(summary, "all-fields").podRef.uid, "96636a87-47f5-4970-a15e-6e7901925c90");
    assert.equal(pod(summary, "no memory").podRef.uid, "", "a missing uid decodes as Go's empty string");
    assert.equal(pod(summary, "all-fields").memory?.workingSetBytes, 2641920n);
    assert.equal(pod(summary, "no memory").memory, undefined);
    assert.equal(pod(summary, "no memory").containers[0]?.memory, undefined);
    assert.equal(pod(summary, "zero workingSetBytes").containers[0]?.memory?.workingSetBytes, 0n);
    assert.deepEqual(pod(summary, "no workingSetBytes").containers[0]?.memory, {
      time: Date.parse("2020-04-16T20:25:30Z"),
    });
  });
});
