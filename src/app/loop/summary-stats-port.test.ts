/** summaryStatsPort: raw Summaries decoded, and an undecodable one an AdapterError naming its source. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AdapterError } from "../../errors.js";
import { summaryStatsPort } from "./summary-stats-port.js";

const clock = { now: (): number => Date.parse("2026-06-26T10:15:00Z") };

const SUMMARY = {
  node: {
    nodeName: "n1",
    memory: {
      time: "2026-06-26T10:14:35Z",
      availableBytes: 1_073_741_824,
      workingSetBytes: 3_221_225_472,
      usageBytes: 3_500_000_000,
    },
  },
  pods: [],
};

describe("summaryStatsPort", () => {
  test("decodes what the source returns and keeps the raw object", async () => {
    const port = summaryStatsPort({
      read: () => Promise.resolve(SUMMARY),
      source: "kubelet https://n1:10250",
      clock,
    });
    const sample = await port.collect();
    assert.equal(sample.raw, SUMMARY);
    assert.equal(sample.summary.node.nodeName, "n1");
    assert.equal(sample.summary.node.memory?.availableBytes, 1_073_741_824n);
  });

  test("a Summary that does not decode: AdapterError summary-undecodable naming the source and the issue", async () => {
    const port = summaryStatsPort({
      read: () => Promise.resolve({ node: { nodeName: "n1", memory: "unavailable" } }),
      source: "kubelet https://n1:10250",
      clock,
    });
    await assert.rejects(port.collect(), (e: unknown) => {
      assert.ok(e instanceof AdapterError);
      assert.equal(e.code, "summary-undecodable");
      assert.match(
        e.message,
        /^the Summary from kubelet https:\/\/n1:10250 does not decode: summary\.node\.memory: /,
      );
      assert.ok(e.hint !== undefined);
      return true;
    });
  });

  test("names the first three issues and counts the rest", async () => {
    const broken = {
      node: { nodeName: 5, memory: "x", fs: "y", rlimit: "z", runtime: 1, systemContainers: 3 },
    };
    const port = summaryStatsPort({ read: () => Promise.resolve(broken), source: "x", clock });
    await assert.rejects(port.collect(), (e: unknown) => {
      assert.ok(e instanceof AdapterError);
      assert.equal(e.message.split("; ").length, 3, e.message);
      assert.match(
        e.message,
        /^the Summary from x does not decode: summary\.node\.nodeName: expected a string, got 5; .* \(and 3 more\)$/,
      );
      return true;
    });
  });

  test("a source that rejects: the rejection as it was", async () => {
    const refused = new AdapterError("kube-api", "403 Forbidden");
    const port = summaryStatsPort({ read: () => Promise.reject(refused), source: "x", clock });
    await assert.rejects(port.collect(), (e: unknown) => e === refused);
  });
});
