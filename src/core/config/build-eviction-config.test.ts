// The entry point end to end: defaults, precedence, collected issues, and never throwing.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import type { EvictionConfig, ThresholdValue } from "../model.js";
import { formatQuantity } from "../quantity.js";
import { buildEvictionConfig } from "./build-eviction-config.js";

const TYPE_META = { apiVersion: "kubelet.config.k8s.io/v1beta1", kind: "KubeletConfiguration" };

const text = (v: ThresholdValue | undefined): string | undefined =>
  v === undefined ? undefined : v.kind === "quantity" ? formatQuantity(v.quantity) : v.text;

function ok(input: Parameters<typeof buildEvictionConfig>[0]): EvictionConfig {
  const r = buildEvictionConfig(input);
  assert.ok(r.ok, r.ok ? "" : JSON.stringify(r.issues, null, 1));
  return r.config;
}

describe("effective configuration", () => {
  test("nothing given: the kubelet's Linux defaults (kubelet-semantics.md §15.5)", () => {
    const c = ok({});
    assert.deepEqual(
      c.thresholds.map((t) => [t.id, t.signal, text(t.value), t.gracePeriodMs, t.origin]),
      [
        ["hard/memory.available", "memory.available", "100Mi", 0, "hard"],
        ["hard/nodefs.available", "nodefs.available", "10%", 0, "hard"],
        ["hard/nodefs.inodesFree", "nodefs.inodesFree", "5%", 0, "hard"],
        ["hard/imagefs.available", "imagefs.available", "15%", 0, "hard"],
        ["hard/imagefs.inodesFree", "imagefs.inodesFree", "5%", 0, "hard"],
        ["allocatable/hard/memory.available", "allocatableMemory.available", "100Mi", 0, "allocatable"],
      ],
    );
    assert.deepEqual(
      { ...c, thresholds: undefined },
      {
        thresholds: undefined,
        maxPodGracePeriodSeconds: 0,
        pressureTransitionPeriodMs: 300_000,
        localStorageCapacityIsolation: true,
        kernelMemcgNotification: false,
        enforceNodeAllocatable: ["pods"],
      },
    );
  });

  test("config file values, then flags over them", () => {
    const config = {
      ...TYPE_META,
      evictionHard: {
        "memory.available": "500Mi",
        "nodefs.available": "10%",
        "nodefs.inodesFree": "5%",
        "imagefs.available": "15%",
        "imagefs.inodesFree": "5%",
      },
      evictionSoft: { "memory.available": "1Gi" },
      evictionSoftGracePeriod: { "memory.available": "1m30s" },
      evictionMinimumReclaim: { "memory.available": "100Mi" },
      evictionMaxPodGracePeriod: 60,
      evictionPressureTransitionPeriod: "30s",
      kernelMemcgNotification: true,
      localStorageCapacityIsolation: false,
      enforceNodeAllocatable: ["pods"],
    };
    const fileOnly = ok({ config });
    assert.deepEqual(
      fileOnly.thresholds.map((t) => [t.id, text(t.value), t.gracePeriodMs, text(t.minReclaim)]),
      [
        ["hard/memory.available", "500Mi", 0, "100Mi"],
        ["hard/nodefs.available", "10%", 0, undefined],
        ["hard/nodefs.inodesFree", "5%", 0, undefined],
        ["hard/imagefs.available", "15%", 0, undefined],
        ["hard/imagefs.inodesFree", "5%", 0, undefined],
        ["soft/memory.available", "1Gi", 90_000, "100Mi"],
        ["allocatable/hard/memory.available", "500Mi", 0, "100Mi"],
      ],
    );
    assert.equal(fileOnly.maxPodGracePeriodSeconds, 60);
    assert.equal(fileOnly.pressureTransitionPeriodMs, 30_000);
    assert.equal(fileOnly.kernelMemcgNotification, true);
    assert.equal(fileOnly.localStorageCapacityIsolation, false);

    const withFlags = ok({
      config,
      flags: [
        "--eviction-hard=memory.available<200Mi,nodefs.available<5%,nodefs.inodesFree<5%,imagefs.available<10%,imagefs.inodesFree<5%",
        "--eviction-soft-grace-period=memory.available=2m",
        "--eviction-max-pod-grace-period=30",
        "--enforce-node-allocatable=",
      ],
    });
    assert.deepEqual(
      withFlags.thresholds.map((t) => [t.id, text(t.value), t.gracePeriodMs]),
      [
        ["hard/memory.available", "200Mi", 0],
        ["hard/nodefs.available", "5%", 0],
        ["hard/nodefs.inodesFree", "5%", 0],
        ["hard/imagefs.available", "10%", 0],
        ["hard/imagefs.inodesFree", "5%", 0],
        ["soft/memory.available", "1Gi", 120_000],
      ],
    );
    assert.equal(withFlags.maxPodGracePeriodSeconds, 30);
    assert.deepEqual(withFlags.enforceNodeAllocatable, []);
  });

  test("transition period 0: 5m from a file, 0 from a flag", () => {
    assert.equal(
      ok({ config: { ...TYPE_META, evictionPressureTransitionPeriod: "0s" } }).pressureTransitionPeriodMs,
      300_000,
    );
    assert.equal(ok({ flags: ["--eviction-pressure-transition-period=0"] }).pressureTransitionPeriodMs, 0);
  });

  test("sub-millisecond grace periods are kept as fractions of a millisecond", () => {
    const c = ok({
      config: {
        ...TYPE_META,
        evictionHard: {},
        evictionSoft: { "pid.available": "10%" },
        evictionSoftGracePeriod: { "pid.available": "1500us" },
      },
    });
    assert.equal(c.thresholds[0]?.gracePeriodMs, 1.5);
  });

  test("custom path prefixes are used in issues", () => {
    const r = buildEvictionConfig({
      config: { ...TYPE_META, evictionHard: { "memory.available": "0" } },
      configPath: "scenario.config",
      flags: ["--nope"],
      flagsPath: "scenario.flags",
    });
    assert.ok(!r.ok);
    assert.deepEqual(
      r.issues.filter((i) => i.severity === "error").map((i) => i.path),
      ["scenario.flags[0]", 'scenario.config.evictionHard["memory.available"]'],
    );
  });
});

describe("collected issues", () => {
  test("a config with three different errors reports all three, with warnings alongside", () => {
    const r = buildEvictionConfig({
      config: {
        ...TYPE_META,
        evictionHard: { "memory.available": "0", "foo.available": "1Gi" },
        evictionSoft: { "memory.available": "1Gi" },
        unknownThing: 1,
      },
    });
    assert.ok(!r.ok);
    assert.deepEqual(
      r.issues.map((i) => [i.severity, i.path, i.message]),
      [
        [
          "warning",
          "config.unknownThing",
          'unknown field "unknownThing": not a KubeletConfiguration (kubelet.config.k8s.io/v1beta1) field, ignored',
        ],
        [
          "error",
          'config.evictionHard["memory.available"]',
          "eviction threshold memory.available must be positive: 0",
        ],
        ["error", 'config.evictionHard["foo.available"]', "unsupported eviction signal foo.available"],
        [
          "error",
          'config.evictionSoft["memory.available"]',
          "grace period must be specified for the soft eviction threshold memory.available",
        ],
        [
          "warning",
          "config.evictionHard",
          "evictionHard does not list nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree, so these default hard thresholds no longer apply: nodefs.available<10%, nodefs.inodesFree<5%, imagefs.available<15%, imagefs.inodesFree<5%; list them, or set mergeDefaultEvictionSettings: true to keep the defaults",
        ],
      ],
    );
  });

  test("errors from the file, the flags and validation together", () => {
    const r = buildEvictionConfig({
      config: { ...TYPE_META, evictionMaxPodGracePeriod: "60", enforceNodeAllocatable: ["pods", "podz"] },
      flags: ["--eviction-soft=memory.available<1Gi", "--eviction-minimum-reclaim=memory.available=-1"],
    });
    assert.ok(!r.ok);
    assert.deepEqual(
      r.issues.filter((i) => i.severity === "error").map((i) => [i.path, i.code]),
      [
        ["config.evictionMaxPodGracePeriod", "wrong-type"],
        ["config.enforceNodeAllocatable[1]", "invalid-enforce-node-allocatable"],
        ['flags[1]["memory.available"]', "negative-min-reclaim"],
        ['flags[0]["memory.available"]', "missing-grace-period"],
      ],
    );
  });

  test("an ignored (0%) hard threshold on a flag map is not an error", () => {
    const c = ok({ flags: ["--eviction-hard=memory.available<0%"] });
    assert.deepEqual(c.thresholds, []);
  });
});

describe("robustness", () => {
  test("never throws, whatever the config value", () => {
    fc.assert(
      fc.property(fc.anything(), (config) => {
        const r = buildEvictionConfig({ config });
        return r.ok ? Array.isArray(r.config.thresholds) : r.issues.length > 0;
      }),
      { numRuns: 300 },
    );
  });

  test("never throws on arbitrary eviction maps and flag words", () => {
    const signal = fc.constantFrom("memory.available", "nodefs.available", "pid.available", "foo", "");
    const value = fc.oneof(
      fc.string(),
      fc.constantFrom("10%", "0%", "100%", "1Gi", "-1", "1m", "NaN%", "1e40%", "0x1"),
    );
    const smap = fc.dictionary(signal, value);
    fc.assert(
      fc.property(smap, smap, smap, smap, fc.array(fc.string()), (hard, soft, grace, reclaim, flags) => {
        const r = buildEvictionConfig({
          config: {
            ...TYPE_META,
            evictionHard: hard,
            evictionSoft: soft,
            evictionSoftGracePeriod: grace,
            evictionMinimumReclaim: reclaim,
          },
          flags,
        });
        return r.ok || r.issues.some((i) => i.severity === "error");
      }),
      { numRuns: 300 },
    );
  });
});
