/**
 * The lean Summary (src/core/summary/lean-summary.ts) on every real Summary in the data set: what
 * the engine reads is unchanged (the node's blocks whole, each pod's usage figures), so are the
 * node's pressure and swap figures reports show, the pods' and containers' are gone with everything
 * else, and a lean Summary is itself a valid Summary.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { NodeSummary, PodStats } from "../../src/core/model.js";
import { IssueList } from "../../src/core/issues.js";
import { decodeSummary } from "../../src/core/summary/decode-summary.js";
import { leanSummary } from "../../src/core/summary/lean-summary.js";
import { toExactJson } from "../../src/core/summary/to-exact-json.js";
import { parseJsonExact } from "../../src/formats/json/parse-json-exact.js";
import { REAL_DATA } from "../support/repo-paths.js";

const NOW = Date.parse("2026-06-26T10:20:00Z");

function decode(raw: unknown): NodeSummary {
  const issues = new IssueList();
  const s = decodeSummary(raw, "summary", NOW, issues);
  assert.ok(s !== undefined, issues.items.map((i) => i.message).join("; "));
  assert.deepEqual(
    issues.items.filter((i) => i.severity === "error"),
    [],
  );
  return s;
}

/** What ranking, messages and local-storage limits read of a pod. */
function usage(p: PodStats): unknown {
  return {
    podRef: p.podRef,
    memory: { workingSetBytes: p.memory?.workingSetBytes, usageBytes: p.memory?.usageBytes },
    containers: p.containers.map((c) => ({
      name: c.name,
      workingSetBytes: c.memory?.workingSetBytes,
      rootfs: [c.rootfs?.usedBytes, c.rootfs?.inodesUsed],
      logs: [c.logs?.usedBytes, c.logs?.inodesUsed],
    })),
    volumes: p.volumes,
    ephemeralStorage: [p.ephemeralStorage?.usedBytes, p.ephemeralStorage?.inodesUsed],
    processCount: p.processCount,
  };
}

describe("leanSummary on the real Summaries", () => {
  const files = readdirSync(REAL_DATA).filter((f) => /^summary-\d+\.json$/.test(f));
  assert.ok(files.length >= 5);
  for (const file of files) {
    test(file, () => {
      const raw = parseJsonExact(readFileSync(join(REAL_DATA, file), "utf8"));
      const lean = leanSummary(raw);
      const [a, b] = [decode(raw), decode(lean)];
      assert.deepEqual(b.node, a.node, "the node's blocks are kept whole");
      assert.deepEqual(b.pods.map(usage), a.pods.map(usage));
      const text = toExactJson(lean);
      for (const gone of [
        '"network"',
        '"startTime"',
        '"rssBytes"',
        '"pageFaults"',
        '"usageNanoCores"',
        '"usageCoreNanoSeconds"',
      ])
        assert.ok(!text.includes(gone), `${gone} is dropped`);
      assert.ok(!text.includes('"cpu":{}'), "a cpu block without pressure is left out, not kept empty");
      const rawText = toExactJson(raw);
      const nodeText = toExactJson((raw as { node?: unknown }).node);
      for (const kept of ['"psi"', '"swap"', '"io"'])
        assert.equal(
          text.includes(kept),
          nodeText.includes(kept),
          `the node's ${kept} is kept where reported`,
        );
      for (const p of b.pods) {
        assert.equal(p.memory?.psi, undefined, `${p.podRef.name}: the pod's pressure is left out`);
        assert.deepEqual([p.cpu, p.io, p.swap], [undefined, undefined, undefined], p.podRef.name);
        for (const c of p.containers)
          assert.deepEqual(
            [c.memory?.psi, c.cpu, c.io, c.swap],
            [undefined, undefined, undefined, undefined],
          );
      }
      assert.ok(text.length < rawText.length, "smaller");
      // uint64 counters stay exact (summary-5.json has 18446744073709551615 inodes).
      if (rawText.includes("18446744073709551615")) assert.ok(text.includes("18446744073709551615"));
    });
  }
});
