/**
 * A Summary as the kubelet writes it with `PodAndContainerStatsFromCRI` (the runtime computes pod
 * and container stats), built from the real Kubernetes 1.35 Summary (summary-1.json) by leaving out
 * what that stats provider does not fill in (upstream pkg/kubelet/stats/cri_stats_provider.go and
 * cri_stats_provider_linux.go, `listPodStatsStrictlyFromCRI`):
 *
 * - a container's memory carries only its time, working set and pressure (`makeContainerStats`
 *   sets no usage, available, rss or page-fault figures);
 * - a container's rootfs carries its time, usedBytes and inodesUsed from the runtime; the
 *   filesystem-wide figures (available, capacity, inodes, inodesFree) come from cAdvisor's view of
 *   the runtime's filesystem id, and are left out when it cannot resolve it, as here;
 * - a pod has no swap block (nothing in that path adds one).
 *
 * Node figures still come from cAdvisor and stay as they are. Each absence must decode as "not
 * reported", never as 0, and a replay must decide exactly as on the full Summary, because every
 * figure the engine reads is still there.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { ReplayRecord } from "../../src/app/replay/record-types.js";
import { IssueList } from "../../src/core/issues.js";
import type { ContainerStats, NodeSummary } from "../../src/core/model.js";
import { decodeSummary } from "../../src/core/summary/decode-summary.js";
import { leanSummary } from "../../src/core/summary/lean-summary.js";
import { parseJsonExact } from "../../src/formats/json/parse-json-exact.js";
import { replay } from "../../src/library/replay.js";
import { REAL_DATA } from "../support/repo-paths.js";

type Json = Record<string, unknown>;

const SUMMARY_TEXT = readFileSync(join(REAL_DATA, "summary-1.json"), "utf8");
const PODS = JSON.parse(readFileSync(join(REAL_DATA, "pods-1.json"), "utf8")) as unknown;
const STEP_TIME = Date.parse("2026-06-26T10:15:00Z");

/** summary-1 with what the CRI stats provider leaves out removed (see the file's comment). */
function criShaped(): Json {
  const summary = parseJsonExact(SUMMARY_TEXT) as Json;
  for (const pod of summary["pods"] as Json[]) {
    delete pod["swap"];
    for (const container of pod["containers"] as Json[]) {
      const memory = container["memory"] as Json;
      for (const field of ["usageBytes", "availableBytes", "rssBytes", "pageFaults", "majorPageFaults"])
        delete memory[field];
      const rootfs = container["rootfs"] as Json;
      for (const field of ["availableBytes", "capacityBytes", "inodes", "inodesFree"]) delete rootfs[field];
    }
  }
  return summary;
}

function decode(raw: unknown): NodeSummary {
  const issues = new IssueList();
  const summary = decodeSummary(raw, "summary", STEP_TIME, issues);
  assert.deepEqual(issues.items, []);
  assert.ok(summary !== undefined);
  return summary;
}

/** The replay of one step on `summary` under one hard threshold. */
async function records(summary: unknown, threshold: Record<string, string>): Promise<ReplayRecord[]> {
  const out: ReplayRecord[] = [];
  const scenario = {
    start: "2026-06-26T10:14:30Z",
    config: { evictionHard: threshold },
    node: { status: { capacity: { memory: "8216887296" } } },
    pods: PODS,
    steps: [{ at: "0s", summary }],
  };
  for await (const r of replay(scenario)) out.push(r);
  return out;
}

// Just above the node's figures (7299776512 bytes of memory available, 84% of nodefs free): one
// ranking on the pods' memory, one on their disk use (containers' rootfs and logs, volumes).
const THRESHOLDS = [{ "memory.available": "7Gi" }, { "nodefs.available": "90%" }];

describe("a Summary from the CRI stats provider (PodAndContainerStatsFromCRI)", () => {
  test("what the provider leaves out decodes as not reported, never as 0", () => {
    const full = decode(parseJsonExact(SUMMARY_TEXT));
    const cri = decode(criShaped());
    assert.equal(cri.pods.length, 17);
    for (const [i, pod] of cri.pods.entries()) {
      assert.equal(pod.swap, undefined, `${pod.podRef.name}: no pod swap`);
      assert.ok(full.pods[i]?.swap !== undefined, "the cAdvisor Summary has it");
      for (const [k, container] of pod.containers.entries()) {
        const where = `${pod.podRef.name}/${container.name}`;
        const fromCadvisor: ContainerStats | undefined = full.pods[i]?.containers[k];
        assert.equal(container.memory?.usageBytes, undefined, where);
        assert.equal(container.memory?.availableBytes, undefined, where);
        assert.equal("usageBytes" in (container.memory ?? {}), false, `${where}: absent, not undefined`);
        assert.equal(container.memory?.workingSetBytes, fromCadvisor?.memory?.workingSetBytes, where);
        assert.deepEqual(container.memory?.psi, fromCadvisor?.memory?.psi, where);
        assert.equal(container.rootfs?.inodes, undefined, where);
        assert.equal(container.rootfs?.inodesFree, undefined, where);
        assert.equal(container.rootfs?.capacityBytes, undefined, where);
        assert.equal(container.rootfs?.usedBytes, fromCadvisor?.rootfs?.usedBytes, where);
        assert.equal(container.rootfs?.inodesUsed, fromCadvisor?.rootfs?.inodesUsed, where);
        assert.deepEqual(container.swap, fromCadvisor?.swap, where);
      }
    }
    const controller = cri.pods.find((p) => p.podRef.name === "kube-controller-manager-datagen-1-35");
    assert.deepEqual(controller?.containers[0]?.memory, {
      time: Date.parse("2026-06-26T10:14:29Z"),
      workingSetBytes: 66174976n,
      psi: {
        full: { total: 0n, avg10: 0, avg60: 0, avg300: 0 },
        some: { total: 0n, avg10: 0, avg60: 0, avg300: 0 },
      },
    });
    assert.deepEqual(cri.node, full.node, "node figures still come from cAdvisor");
  });

  test("a replay decides exactly as on the cAdvisor Summary, full or lean", async () => {
    for (const threshold of THRESHOLDS) {
      const fromCadvisor = await records(parseJsonExact(SUMMARY_TEXT), threshold);
      const step = fromCadvisor.find((r) => r.type === "step");
      assert.ok(step?.type === "step" && step.evictions.length === 1, "the engine ranks and evicts");
      assert.ok((step.ranking?.length ?? 0) > 10, "every running pod is ranked");
      assert.deepEqual(await records(criShaped(), threshold), fromCadvisor);
      assert.deepEqual(await records(leanSummary(criShaped()), threshold), fromCadvisor);
    }
  });
});
