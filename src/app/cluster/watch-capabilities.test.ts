/** watchCapabilities: what /status says `evictd watch` can and cannot do, per mode. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { watchCapabilities } from "./watch-capabilities.js";

const base = {
  source: "API server proxy https://k/api/v1/nodes/n1/proxy",
  thresholdsOrigin: "configz of node n1",
  layout: "single",
  intervalMs: 10_000,
} as const;

test("names the source, the thresholds' origin, the layout and the interval", () => {
  const c = watchCapabilities({ ...base, mode: "shadow" });
  assert.equal(c[0], `stats and configuration from ${base.source}; thresholds from configz of node n1`);
  assert.equal(c[1], "filesystem layout: single");
  assert.match(c[3] ?? "", /the loop runs every 10s$/);
});

test("one sentence per mode", () => {
  assert.match(watchCapabilities({ ...base, mode: "shadow" })[2] ?? "", /^shadow mode: .*no pod is touched/);
  assert.match(watchCapabilities({ ...base, mode: "eviction-api" })[2] ?? "", /Eviction API/);
  assert.match(
    watchCapabilities({ ...base, mode: "delete" })[2] ?? "",
    /DisruptionTarget condition .* deleted with their grace period/,
  );
});

test("--stats cgroups: the node-local lines replace the 'no kernel notifications' one", () => {
  const c = watchCapabilities({ ...base, mode: "shadow", nodeLocal: ["kernel notifications on X"] });
  assert.equal(c[3], "kernel notifications on X");
  assert.ok(!c.some((l) => l.startsWith("no kernel notifications")));
});

test("the preflight and EvictionRequests are said when on, and only then", () => {
  const off = watchCapabilities({ ...base, mode: "eviction-api" });
  assert.ok(!off.some((l) => /dry run|EvictionRequest|PodDisruptionBudget protects/.test(l)));
  const on = watchCapabilities({ ...base, mode: "eviction-api", preflight: true, evictionRequests: true });
  assert.ok(
    on.some((l) => /^a pod whose eviction its PodDisruptionBudget refuses .* no dry run first/.test(l)),
  );
  assert.ok(on.some((l) => /^soft-threshold evictions are EvictionRequests/.test(l)));
  const dryRun = watchCapabilities({ ...base, mode: "eviction-api", preflight: true, dryRunFirst: true });
  assert.ok(dryRun.some((l) => /^each eviction is first sent as a dry run/.test(l)));
  const deletion = watchCapabilities({ ...base, mode: "delete", preflight: true });
  assert.ok(deletion.some((l) => /^each eviction is first sent as a dry run/.test(l)));
});
