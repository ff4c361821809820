/** Counters as JSON numbers or bigints, the JSON builders, and the writer that keeps uint64 digits exact. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IssueList } from "../../core/issues.js";
import { decodeSummary } from "../../core/summary/decode-summary.js";
import { parseJsonExact } from "../../formats/json/parse-json-exact.js";
import { counter, fsJson, memoryJson, stringifySummaryJson, type RawSummaryJson } from "./summary-json.js";

const T = "2026-06-26T10:14:35.5Z";

describe("counter", () => {
  const cases = [
    { name: "zero", v: 0n, want: 0 },
    { name: "2^53 − 1 is still a number", v: 9007199254740991n, want: 9007199254740991 },
    { name: "2^53 becomes a bigint", v: 9007199254740992n, want: 9007199254740992n },
    { name: "uint64 max", v: 18446744073709551615n, want: 18446744073709551615n },
  ];
  for (const c of cases) test(c.name, () => assert.equal(counter(c.v), c.want));
});

describe("memoryJson", () => {
  const cases = [
    {
      name: "limited",
      limit: 1000n,
      ws: 300n,
      want: { time: T, usageBytes: 400, workingSetBytes: 300, availableBytes: 700 },
    },
    {
      name: "over the limit: available clamped at 0",
      limit: 200n,
      ws: 300n,
      want: { time: T, usageBytes: 400, workingSetBytes: 300, availableBytes: 0 },
    },
    {
      name: "unlimited: no availableBytes",
      limit: undefined,
      ws: 300n,
      want: { time: T, usageBytes: 400, workingSetBytes: 300 },
    },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(memoryJson(T, 400n, c.ws, c.limit), c.want));
});

describe("stringifySummaryJson", () => {
  test("bigints are written as integer literals and read back exactly", () => {
    const huge = 18446744073709551615n;
    const fs = fsJson({ capacityBytes: huge, availableBytes: 5n, inodes: 10n, inodesFree: 4n }, T, 7n, 6n);
    const raw: RawSummaryJson = {
      node: {
        nodeName: "n",
        systemContainers: [{ name: "pods", memory: memoryJson(T, 1n, 1n, 2n) }],
        memory: memoryJson(T, 1n, 1n, 2n),
        fs,
        runtime: { imageFs: fs, containerFs: fs },
        rlimit: { time: T, maxpid: 100, curproc: 3 },
      },
      pods: [],
    };
    const text = stringifySummaryJson(raw);
    assert.match(text, /"capacityBytes":18446744073709551615,/);
    const issues = new IssueList();
    const summary = decodeSummary(parseJsonExact(text), "summary", undefined, issues);
    assert.deepEqual(issues.items, []);
    assert.equal(summary?.node.fs?.capacityBytes, huge);
    assert.equal(summary?.node.fs?.usedBytes, 7n);
  });

  test("a string that looks like the marker is not rewritten", () => {
    const raw = { node: { nodeName: "bigint:5" }, pods: [] } as unknown as RawSummaryJson;
    assert.equal(stringifySummaryJson(raw), '{"node":{"nodeName":"bigint:5"},"pods":[]}');
  });
});
