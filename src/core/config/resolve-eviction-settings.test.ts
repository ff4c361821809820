// Defaults and precedence: nil vs {} evictionHard, mergeDefaultEvictionSettings, flags over the file.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IssueList } from "../issues.js";
import { parseEvictionFlags } from "./eviction-flags.js";
import { readKubeletConfig } from "./read-kubelet-config.js";
import { resolveEvictionSettings } from "./resolve-eviction-settings.js";
import type { EvictionSettings, SettingMap } from "./setting-types.js";

const TYPE_META = { apiVersion: "kubelet.config.k8s.io/v1beta1", kind: "KubeletConfiguration" };
const LINUX_DEFAULTS: [string, string][] = [
  ["memory.available", "100Mi"],
  ["nodefs.available", "10%"],
  ["nodefs.inodesFree", "5%"],
  ["imagefs.available", "15%"],
  ["imagefs.inodesFree", "5%"],
];

function resolve(config: object | undefined, flags: string[] = []): EvictionSettings {
  const issues = new IssueList();
  const file =
    config === undefined ? undefined : readKubeletConfig({ ...TYPE_META, ...config }, "config", issues);
  const flagLayer = parseEvictionFlags(flags, "flags", issues);
  assert.deepEqual(issues.errors, [], "test input must be valid");
  return resolveEvictionSettings(file, flagLayer, "config");
}

const pairs = (m: SettingMap): [string, string][] => m.entries.map((e) => [e.key, e.value]);

describe("evictionHard", () => {
  test("absent (nil) → the Linux defaults, pointing at config.evictionHard", () => {
    const s = resolve({});
    assert.equal(s.evictionHardOrigin, "default");
    assert.deepEqual(pairs(s.evictionHard), LINUX_DEFAULTS);
    assert.equal(s.evictionHard.entries[0]?.path, 'config.evictionHard["memory.available"]');
  });

  test("null is nil too", () => {
    assert.deepEqual(pairs(resolve({ evictionHard: null }).evictionHard), LINUX_DEFAULTS);
  });

  test("no config and no flag → the defaults (evictd's choice for the §1.3 point 8 corner)", () => {
    const s = resolve(undefined);
    assert.equal(s.evictionHardOrigin, "default");
    assert.deepEqual(pairs(s.evictionHard), LINUX_DEFAULTS);
  });

  test("partial map without merge → used as written, defaults dropped", () => {
    const s = resolve({ evictionHard: { "memory.available": "1Gi" } });
    assert.equal(s.evictionHardOrigin, "config");
    assert.deepEqual(pairs(s.evictionHard), [["memory.available", "1Gi"]]);
  });

  test("explicit {} disables everything", () => {
    const s = resolve({ evictionHard: {} });
    assert.equal(s.evictionHardOrigin, "config");
    assert.deepEqual(pairs(s.evictionHard), []);
  });

  test("mergeDefaultEvictionSettings: true fills the missing default keys; user keys win", () => {
    const s = resolve({
      evictionHard: { "memory.available": "1Gi", "pid.available": "10%" },
      mergeDefaultEvictionSettings: true,
    });
    assert.equal(s.evictionHardOrigin, "merged");
    assert.deepEqual(pairs(s.evictionHard), [
      ["memory.available", "1Gi"],
      ["pid.available", "10%"],
      ["nodefs.available", "10%"],
      ["nodefs.inodesFree", "5%"],
      ["imagefs.available", "15%"],
      ["imagefs.inodesFree", "5%"],
    ]);
  });

  test("merge with {} gives back every default", () => {
    assert.deepEqual(
      pairs(resolve({ evictionHard: {}, mergeDefaultEvictionSettings: true }).evictionHard),
      LINUX_DEFAULTS,
    );
  });

  test("mergeDefaultEvictionSettings: false is the same as absent", () => {
    assert.deepEqual(
      pairs(
        resolve({ evictionHard: { "memory.available": "1Gi" }, mergeDefaultEvictionSettings: false })
          .evictionHard,
      ),
      [["memory.available", "1Gi"]],
    );
  });

  test("the flag replaces the whole map, merge or not", () => {
    const s = resolve(
      {
        evictionHard: { "memory.available": "1Gi", "nodefs.available": "20%" },
        mergeDefaultEvictionSettings: true,
      },
      ["--eviction-hard=imagefs.available<30%"],
    );
    assert.equal(s.evictionHardOrigin, "flag");
    assert.deepEqual(pairs(s.evictionHard), [["imagefs.available", "30%"]]);
    assert.equal(s.evictionHard.entries[0]?.path, 'flags[0]["imagefs.available"]');
  });

  test("merge applies only to evictionHard", () => {
    const s = resolve({ evictionSoft: { "memory.available": "1Gi" }, mergeDefaultEvictionSettings: true });
    assert.deepEqual(pairs(s.evictionSoft), [["memory.available", "1Gi"]]);
  });
});

describe("other maps and scalars", () => {
  test("defaults with no config", () => {
    const s = resolve(undefined);
    assert.deepEqual(pairs(s.evictionSoft), []);
    assert.deepEqual(pairs(s.evictionSoftGracePeriod), []);
    assert.deepEqual(pairs(s.evictionMinimumReclaim), []);
    assert.equal(s.evictionMaxPodGracePeriod.value, 0);
    assert.equal(s.evictionPressureTransitionPeriod.value, 300_000_000_000n);
    assert.equal(s.kernelMemcgNotification.value, false);
    assert.equal(s.localStorageCapacityIsolation.value, true);
    assert.deepEqual(
      s.enforceNodeAllocatable.items.map((i) => i.value),
      ["pods"],
    );
    assert.deepEqual([...s.fromFlags], []);
  });

  test("a flag map replaces the file's map wholesale", () => {
    const s = resolve(
      {
        evictionSoft: { "memory.available": "1Gi", "nodefs.available": "15%" },
        evictionSoftGracePeriod: { "memory.available": "1m", "nodefs.available": "1m" },
      },
      ["--eviction-soft-grace-period=memory.available=2m"],
    );
    assert.deepEqual(pairs(s.evictionSoft), [
      ["memory.available", "1Gi"],
      ["nodefs.available", "15%"],
    ]);
    assert.deepEqual(pairs(s.evictionSoftGracePeriod), [["memory.available", "2m"]]);
    assert.deepEqual([...s.fromFlags], ["evictionSoftGracePeriod"]);
  });

  test("transition period: 0 in the file → 5m, but 0 by flag stays 0", () => {
    const file = resolve({ evictionPressureTransitionPeriod: "0s" });
    assert.equal(file.evictionPressureTransitionPeriod.value, 300_000_000_000n);
    assert.equal(file.evictionPressureTransitionPeriod.path, "config.evictionPressureTransitionPeriod");
    const flag = resolve({ evictionPressureTransitionPeriod: "1m" }, [
      "--eviction-pressure-transition-period=0",
    ]);
    assert.equal(flag.evictionPressureTransitionPeriod.value, 0n);
    assert.ok(flag.fromFlags.has("evictionPressureTransitionPeriod"));
    assert.equal(
      resolve({ evictionPressureTransitionPeriod: "30s" }).evictionPressureTransitionPeriod.value,
      30_000_000_000n,
    );
  });

  test("flags override file scalars and lists; the file overrides defaults", () => {
    const cfg = {
      evictionMaxPodGracePeriod: 60,
      kernelMemcgNotification: true,
      localStorageCapacityIsolation: false,
      enforceNodeAllocatable: ["pods", "kube-reserved"],
    };
    const fileOnly = resolve(cfg);
    assert.equal(fileOnly.evictionMaxPodGracePeriod.value, 60);
    assert.equal(fileOnly.kernelMemcgNotification.value, true);
    assert.equal(fileOnly.localStorageCapacityIsolation.value, false);
    assert.deepEqual(
      fileOnly.enforceNodeAllocatable.items.map((i) => i.value),
      ["pods", "kube-reserved"],
    );
    const both = resolve(cfg, [
      "--eviction-max-pod-grace-period=30",
      "--kernel-memcg-notification=false",
      "--local-storage-capacity-isolation",
      "--enforce-node-allocatable=",
    ]);
    assert.equal(both.evictionMaxPodGracePeriod.value, 30);
    assert.equal(both.kernelMemcgNotification.value, false);
    assert.equal(both.localStorageCapacityIsolation.value, true);
    assert.deepEqual(both.enforceNodeAllocatable.items, []);
  });

  test("an explicit empty enforceNodeAllocatable list stays empty (only nil defaults to pods)", () => {
    assert.deepEqual(resolve({ enforceNodeAllocatable: [] }).enforceNodeAllocatable.items, []);
  });

  test("defaults inside the OpenShift wrapper point under spec.kubeletConfig", () => {
    const issues = new IssueList();
    const file = readKubeletConfig(
      {
        apiVersion: "machineconfiguration.openshift.io/v1",
        kind: "KubeletConfig",
        spec: { kubeletConfig: {} },
      },
      "config",
      issues,
    );
    const s = resolveEvictionSettings(file, parseEvictionFlags([], "flags", issues), "config");
    assert.equal(s.evictionHard.path, "config.spec.kubeletConfig.evictionHard");
    assert.equal(s.evictionMaxPodGracePeriod.path, "config.spec.kubeletConfig.evictionMaxPodGracePeriod");
  });
});
