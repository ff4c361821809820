// Risky-but-valid settings: each produces one warning at the right path, saying why.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Issue } from "../issues.js";
import { buildEvictionConfig } from "./build-eviction-config.js";

const TYPE_META = { apiVersion: "kubelet.config.k8s.io/v1beta1", kind: "KubeletConfiguration" };
/** A full default evictionHard, so the dropped-defaults rule stays quiet unless a test wants it. */
const FULL_HARD = {
  "memory.available": "100Mi",
  "nodefs.available": "10%",
  "nodefs.inodesFree": "5%",
  "imagefs.available": "15%",
  "imagefs.inodesFree": "5%",
};

function warnings(config: object | undefined, flags: string[] = []): Issue[] {
  const r = buildEvictionConfig({
    config: config === undefined ? undefined : { ...TYPE_META, ...config },
    flags,
  });
  assert.ok(r.ok, r.ok ? "" : JSON.stringify(r.issues, null, 1));
  return r.warnings;
}

function only(ws: Issue[], code: string): Issue {
  assert.deepEqual(
    ws.map((w) => w.code),
    [code],
  );
  const w = ws[0];
  assert.ok(w !== undefined);
  assert.equal(w.severity, "warning");
  return w;
}

describe("no warnings", () => {
  test("defaults, a full evictionHard, or a partial one with merge", () => {
    assert.deepEqual(warnings(undefined), []);
    assert.deepEqual(warnings({}), []);
    assert.deepEqual(warnings({ evictionHard: FULL_HARD }), []);
    assert.deepEqual(
      warnings({ evictionHard: { "memory.available": "1Gi" }, mergeDefaultEvictionSettings: true }),
      [],
    );
  });

  test("a sensible soft threshold above the hard one", () => {
    assert.deepEqual(
      warnings({
        evictionHard: FULL_HARD,
        evictionSoft: { "memory.available": "1Gi", "nodefs.available": "15%" },
        evictionSoftGracePeriod: { "memory.available": "1m", "nodefs.available": "1m" },
        evictionMaxPodGracePeriod: 60,
        evictionMinimumReclaim: { "memory.available": "0Mi" },
      }),
      [],
    );
  });
});

describe("evictionHard that drops defaults", () => {
  test("partial map: names the dropped signals and how to keep them", () => {
    const w = only(
      warnings({
        evictionHard: { "memory.available": "1Gi", "nodefs.available": "10%", "nodefs.inodesFree": "5%" },
      }),
      "dropped-default-thresholds",
    );
    assert.equal(w.path, "config.evictionHard");
    assert.equal(
      w.message,
      "evictionHard does not list imagefs.available, imagefs.inodesFree, so these default hard thresholds no longer apply: imagefs.available<15%, imagefs.inodesFree<5%; list them, or set mergeDefaultEvictionSettings: true to keep the defaults",
    );
  });

  test("empty map", () => {
    const w = only(warnings({ evictionHard: {} }), "empty-eviction-hard");
    assert.match(
      w.message,
      /^evictionHard is empty, which disables every hard eviction threshold including the defaults \(memory\.available<100Mi, /u,
    );
  });

  test("a flag map is named as the flag and says merge does not apply", () => {
    const w = only(
      warnings({ evictionHard: FULL_HARD }, ["--eviction-hard=memory.available<1Gi"]),
      "dropped-default-thresholds",
    );
    assert.equal(w.path, "flags[0]");
    assert.match(w.message, /^--eviction-hard does not list nodefs\.available, /u);
    assert.match(w.message, /mergeDefaultEvictionSettings does not apply to a flag/u);
  });

  test("0% on a default key still lists it (an explicit disable), so no warning", () => {
    assert.deepEqual(warnings({ evictionHard: { ...FULL_HARD, "imagefs.inodesFree": "0%" } }), []);
  });
});

describe("individual rules", () => {
  test("negative evictionMaxPodGracePeriod", () => {
    const w = only(warnings({ evictionMaxPodGracePeriod: -1 }), "negative-max-pod-grace-period");
    assert.equal(w.path, "config.evictionMaxPodGracePeriod");
    assert.match(
      w.message,
      /^evictionMaxPodGracePeriod -1 is negative: the kubelet does not defer to the pod's terminationGracePeriodSeconds/u,
    );
    assert.match(w.message, /1 s minimum/u);
  });

  test("soft threshold at or below the hard one (quantities, percentages), not when incomparable", () => {
    const equal = only(
      warnings({
        evictionHard: { ...FULL_HARD, "memory.available": "1Gi" },
        evictionSoft: { "memory.available": "1024Mi" },
        evictionSoftGracePeriod: { "memory.available": "1m" },
      }),
      "soft-not-above-hard",
    );
    assert.equal(equal.path, 'config.evictionSoft["memory.available"]');
    assert.match(
      equal.message,
      /^soft threshold memory\.available<1Gi is at or below the hard threshold memory\.available<1Gi: /u,
    );
    const below = only(
      warnings({
        evictionHard: FULL_HARD,
        evictionSoft: { "nodefs.available": "5%" },
        evictionSoftGracePeriod: { "nodefs.available": "1m" },
      }),
      "soft-not-above-hard",
    );
    assert.match(
      below.message,
      /nodefs\.available<5% is at or below the hard threshold nodefs\.available<10%/u,
    );
    assert.deepEqual(
      warnings({
        evictionHard: FULL_HARD,
        evictionSoft: { "memory.available": "1%" },
        evictionSoftGracePeriod: { "memory.available": "1m" },
      }),
      [],
    );
  });

  test("soft threshold with a zero grace period behaves as hard", () => {
    const w = only(
      warnings({
        evictionHard: FULL_HARD,
        evictionSoft: { "memory.available": "1Gi" },
        evictionSoftGracePeriod: { "memory.available": "0" },
      }),
      "soft-grace-zero",
    );
    assert.equal(w.path, 'config.evictionSoftGracePeriod["memory.available"]');
    assert.match(
      w.message,
      /^grace period 0 makes the soft threshold memory\.available behave as a hard one/u,
    );
    assert.match(w.message, /copied to allocatableMemory\.available$/u);
  });

  test("grace periods without a soft threshold are ignored", () => {
    const w = only(
      warnings({ evictionHard: FULL_HARD, evictionSoftGracePeriod: { "pid.available": "1m" } }),
      "unused-grace-period",
    );
    assert.equal(w.path, 'config.evictionSoftGracePeriod["pid.available"]');
    assert.equal(
      w.message,
      "grace period 1m for pid.available is ignored: there is no soft threshold for pid.available (grace periods only apply to evictionSoft entries)",
    );
  });

  test("minimum reclaim without a threshold is ignored", () => {
    const w = only(
      warnings({ evictionHard: FULL_HARD, evictionMinimumReclaim: { "pid.available": "100" } }),
      "unused-min-reclaim",
    );
    assert.equal(w.path, 'config.evictionMinimumReclaim["pid.available"]');
  });

  test("transition period 0 by flag, or negative anywhere; 0 in the file is defaulted (no warning)", () => {
    assert.deepEqual(warnings({ evictionPressureTransitionPeriod: "0s" }), []);
    const flag = only(
      warnings({}, ["--eviction-pressure-transition-period", "0s"]),
      "no-pressure-transition",
    );
    assert.equal(flag.path, "flags[0]");
    assert.match(
      flag.message,
      /^--eviction-pressure-transition-period is 0 \(a flag value is not defaulted to 5m like a 0 in the config file\): .*no MemoryPressure, DiskPressure or PIDPressure condition is ever reported/u,
    );
    const negative = only(warnings({ evictionPressureTransitionPeriod: "-1m" }), "no-pressure-transition");
    assert.match(negative.message, /^evictionPressureTransitionPeriod is negative: /u);
  });

  test("user containerfs thresholds are overridden", () => {
    const w = only(
      warnings({ evictionHard: { ...FULL_HARD, "containerfs.available": "10%" } }),
      "containerfs-overridden",
    );
    assert.equal(w.path, 'config.evictionHard["containerfs.available"]');
    assert.match(w.message, /found conflicting containerfs eviction\. Ignoring\./u);
  });

  test("degenerate percentages: 100.0%, 0.0%, NaN%", () => {
    const full = only(
      warnings({ evictionHard: { ...FULL_HARD, "nodefs.available": "100.0%" } }),
      "full-capacity-threshold",
    );
    assert.equal(full.path, 'config.evictionHard["nodefs.available"]');
    assert.match(full.message, /only the exact text "100%" disables a threshold/u);
    only(warnings({ evictionHard: { ...FULL_HARD, "nodefs.available": "0.0%" } }), "zero-threshold");
    only(warnings({ evictionHard: { ...FULL_HARD, "nodefs.available": "NaN%" } }), "nan-threshold");
  });
});
