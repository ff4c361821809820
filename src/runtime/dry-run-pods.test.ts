/** The dry-run pods port: kills are logged and stamped by the given clock, pods stay active, reclaim frees nothing. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IssueList } from "../core/issues.js";
import type { Pod } from "../core/model.js";
import { decodePod } from "../core/pod/decode-pod.js";
import { DryRunPods } from "./dry-run-pods.js";

function pod(name: string): Pod {
  const issues = new IssueList();
  const p = decodePod(
    { metadata: { name, namespace: "shop" }, spec: { containers: [{ name: "c" }] } },
    "pod",
    issues,
  );
  assert.deepEqual(issues.items, []);
  assert.ok(p);
  return p;
}

describe("DryRunPods", () => {
  const web = pod("web");
  const db = pod("db");
  const lines: { fields: Record<string, unknown>; message: string }[] = [];
  const logger = {
    info: (fields: Record<string, unknown>, message: string) => lines.push({ fields, message }),
    warn: () => assert.fail("no warning expected"),
    error: () => assert.fail("no error expected"),
  };
  let now = 1_782_468_000_000;
  const port = new DryRunPods({ pods: { activePods: () => [web, db] }, clock: { now: () => now }, logger });

  test("a kill is logged, stamped with the clock, done at once, and the pod stays active", async () => {
    now += 1234;
    const status = {
      phase: "Failed" as const,
      reason: "Evicted",
      message: "The node was low on resource: memory. ",
      conditions: [],
    };
    const result = await port.kill(web, 30, status);
    assert.equal(result.terminatedAt, 1_782_468_001_234);
    assert.deepEqual(await result.done, { ok: true, stuck: [] });
    assert.deepEqual(lines, [
      {
        fields: { pod: "shop/web", grace: 30, message: "The node was low on resource: memory. " },
        message: "dry run: would evict shop/web",
      },
    ]);
    assert.deepEqual(port.activePods(), [web, db]);
    assert.equal(await port.isCleanedUp(web), true);
  });

  test("a kill of a pod no longer active (it finished) says there is nothing to evict; nothing is done either way", async () => {
    lines.length = 0;
    const finished = pod("finished");
    const result = await port.kill(finished, 30, {
      phase: "Failed",
      reason: "Evicted",
      message: "The node was low on resource: memory. ",
      conditions: [],
    });
    assert.deepEqual(await result.done, { ok: true, stuck: [] });
    assert.deepEqual(
      lines.map((l) => l.message),
      ["dry run: shop/finished is no longer active (it has finished): nothing to evict"],
    );
    assert.deepEqual(port.activePods(), [web, db]);
  });

  test("reclaim frees nothing and says why", async () => {
    assert.deepEqual(await port.containerGC(), { freedBytes: 0, note: "dry run" });
    assert.deepEqual(await port.imageGC(), { freedBytes: 0, note: "dry run" });
  });
});
