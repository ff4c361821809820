// Reading eviction fields from decoded KubeletConfiguration objects: type checks, type meta, wrappers.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IssueList } from "../issues.js";
import { readKubeletConfig } from "./read-kubelet-config.js";
import type { EvictionSettingsLayer } from "./setting-types.js";

const TYPE_META = { apiVersion: "kubelet.config.k8s.io/v1beta1", kind: "KubeletConfiguration" };

function read(raw: unknown): { layer: EvictionSettingsLayer; issues: [string, string, string, string][] } {
  const issues = new IssueList();
  const layer = readKubeletConfig(raw, "config", issues);
  return { layer, issues: issues.items.map((i) => [i.severity, i.path, i.code, i.message]) };
}

describe("type meta", () => {
  test("a v1beta1 KubeletConfiguration reads silently", () => {
    const { layer, issues } = read({ ...TYPE_META, evictionHard: { "memory.available": "1Gi" } });
    assert.deepEqual(issues, []);
    assert.equal(layer.basePath, "config");
    assert.deepEqual(layer.evictionHard, {
      path: "config.evictionHard",
      entries: [{ key: "memory.available", value: "1Gi", path: 'config.evictionHard["memory.available"]' }],
    });
  });

  test("missing apiVersion and kind is a warning, and the fields are still read", () => {
    const { layer, issues } = read({ evictionMaxPodGracePeriod: 30 });
    assert.deepEqual(
      issues.map(([s, p, c]) => [s, p, c]),
      [["warning", "config", "missing-type-meta"]],
    );
    assert.equal(layer.evictionMaxPodGracePeriod?.value, 30);
  });

  test("only one of them missing is a warning too", () => {
    assert.deepEqual(
      read({ kind: "KubeletConfiguration" }).issues.map(([s, , , m]) => [s, m]),
      [["warning", "no apiVersion: read as kubelet.config.k8s.io/v1beta1"]],
    );
    assert.deepEqual(
      read({ apiVersion: "kubelet.config.k8s.io/v1beta1" }).issues.map(([s, , , m]) => [s, m]),
      [["warning", "no kind: read as KubeletConfiguration"]],
    );
  });

  test("a wrong apiVersion or kind is an error", () => {
    const { issues } = read({ apiVersion: "kubelet.config.k8s.io/v1alpha1", kind: "Pod" });
    assert.deepEqual(
      issues.map(([s, p, c]) => [s, p, c]),
      [
        ["error", "config.apiVersion", "unsupported-api-version"],
        ["error", "config.kind", "unsupported-kind"],
      ],
    );
    assert.match(issues[0]?.[3] ?? "", /"kubelet\.config\.k8s\.io\/v1alpha1"/u);
  });

  test("non-objects are rejected", () => {
    for (const raw of [null, "evictionHard: {}", [1], 3]) {
      const { issues } = read(raw);
      assert.equal(issues.length, 1);
      assert.equal(issues[0]?.[1], "config");
      assert.equal(issues[0]?.[2], "wrong-type");
    }
  });
});

describe("OpenShift KubeletConfig wrapper", () => {
  const wrapper = (kubeletConfig: unknown): unknown => ({
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "KubeletConfig",
    metadata: { name: "x" },
    spec: { kubeletConfig, machineConfigPoolSelector: {} },
    status: { conditions: null },
  });

  test("reads spec.kubeletConfig, with paths under it, without type-meta warnings", () => {
    const { layer, issues } = read(
      wrapper({ evictionHard: { "memory.available": "100Mi" }, evictionPressureTransitionPeriod: "0s" }),
    );
    assert.deepEqual(issues, []);
    assert.equal(layer.basePath, "config.spec.kubeletConfig");
    assert.equal(
      layer.evictionHard?.entries[0]?.path,
      'config.spec.kubeletConfig.evictionHard["memory.available"]',
    );
    assert.deepEqual(layer.evictionPressureTransitionPeriod, {
      value: 0n,
      path: "config.spec.kubeletConfig.evictionPressureTransitionPeriod",
    });
  });

  test("unknown fields inside are warned about with the inner path", () => {
    const { issues } = read(wrapper({ evictionHardd: {} }));
    assert.deepEqual(
      issues.map(([s, p, c]) => [s, p, c]),
      [["warning", "config.spec.kubeletConfig.evictionHardd", "unknown-field"]],
    );
  });

  test("a wrapper without spec.kubeletConfig is an error", () => {
    const { issues } = read({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "KubeletConfig",
      spec: {},
    });
    assert.deepEqual(
      issues.map(([s, p, c]) => [s, p, c]),
      [["error", "config.spec.kubeletConfig", "missing-field"]],
    );
  });

  test("another kind under the OpenShift apiVersion is an error", () => {
    const { issues } = read({ apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfig" });
    assert.deepEqual(
      issues.map(([s, p, c]) => [s, p, c]),
      [["error", "config.kind", "unsupported-kind"]],
    );
  });
});

describe("fields", () => {
  test("unknown top-level fields warn; known non-eviction fields do not", () => {
    const { issues } = read({
      ...TYPE_META,
      address: "0.0.0.0",
      cgroupDriver: "systemd",
      kubeReserved: { memory: "1Gi" },
      featureGates: { Foo: true },
      memorySwap: {},
      crashLoopBackOff: {},
      evictionhard: { "memory.available": "1Gi" },
      swapEviction: true,
    });
    assert.deepEqual(
      issues.map(([s, p, c, m]) => [s, p, c, m]),
      [
        [
          "warning",
          "config.evictionhard",
          "unknown-field",
          'unknown field "evictionhard": not a KubeletConfiguration (kubelet.config.k8s.io/v1beta1) field, ignored (did you mean "evictionHard"? field names are case-sensitive)',
        ],
        [
          "warning",
          "config.swapEviction",
          "unknown-field",
          'unknown field "swapEviction": not a KubeletConfiguration (kubelet.config.k8s.io/v1beta1) field, ignored',
        ],
      ],
    );
  });

  test("every eviction field is read, keys kept exactly as written", () => {
    const { layer, issues } = read({
      ...TYPE_META,
      evictionHard: { "memory.available ": "1Gi" },
      evictionSoft: { "memory.available": "2Gi" },
      evictionSoftGracePeriod: { "memory.available": "1m" },
      evictionMinimumReclaim: { "memory.available": "0Mi" },
      evictionMaxPodGracePeriod: -1,
      evictionPressureTransitionPeriod: "30s",
      mergeDefaultEvictionSettings: true,
      kernelMemcgNotification: true,
      localStorageCapacityIsolation: false,
      enforceNodeAllocatable: ["pods", "kube-reserved"],
    });
    assert.deepEqual(issues, []);
    assert.equal(layer.evictionHard?.entries[0]?.key, "memory.available ");
    assert.equal(layer.evictionSoft?.entries[0]?.value, "2Gi");
    assert.equal(layer.evictionSoftGracePeriod?.entries[0]?.value, "1m");
    assert.equal(layer.evictionMinimumReclaim?.entries[0]?.value, "0Mi");
    assert.deepEqual(layer.evictionMaxPodGracePeriod, {
      value: -1,
      path: "config.evictionMaxPodGracePeriod",
    });
    assert.deepEqual(layer.evictionPressureTransitionPeriod, {
      value: 30_000_000_000n,
      path: "config.evictionPressureTransitionPeriod",
    });
    assert.equal(layer.mergeDefaultEvictionSettings?.value, true);
    assert.equal(layer.kernelMemcgNotification?.value, true);
    assert.equal(layer.localStorageCapacityIsolation?.value, false);
    assert.deepEqual(
      layer.enforceNodeAllocatable?.items.map((i) => [i.value, i.path]),
      [
        ["pods", "config.enforceNodeAllocatable[0]"],
        ["kube-reserved", "config.enforceNodeAllocatable[1]"],
      ],
    );
  });

  test("null fields are absent (nil), an explicit {} map and [] list are kept", () => {
    const { layer, issues } = read({
      ...TYPE_META,
      evictionHard: null,
      evictionSoft: {},
      enforceNodeAllocatable: [],
      mergeDefaultEvictionSettings: null,
    });
    assert.deepEqual(issues, []);
    assert.equal(layer.evictionHard, undefined);
    assert.deepEqual(layer.evictionSoft, { path: "config.evictionSoft", entries: [] });
    assert.deepEqual(layer.enforceNodeAllocatable, { path: "config.enforceNodeAllocatable", items: [] });
    assert.equal(layer.mergeDefaultEvictionSettings, undefined);
  });

  test("a null map value decodes to the empty string", () => {
    const { layer } = read({ ...TYPE_META, evictionHard: { "memory.available": null } });
    assert.equal(layer.evictionHard?.entries[0]?.value, "");
  });

  test("wrong types are errors naming the field, key and value; every one is reported", () => {
    const { issues } = read({
      ...TYPE_META,
      evictionHard: { "memory.available": 100, "nodefs.available": "10%", "pid.available": { a: 1 } },
      evictionSoft: ["memory.available<1Gi"],
      evictionSoftGracePeriod: "memory.available=1m",
      evictionMaxPodGracePeriod: "60",
      evictionPressureTransitionPeriod: 300,
      mergeDefaultEvictionSettings: "true",
      kernelMemcgNotification: 1,
      enforceNodeAllocatable: "pods",
    });
    assert.deepEqual(
      issues.map(([s, p, c, m]) => [s, p, c, m]),
      [
        [
          "error",
          'config.evictionHard["memory.available"]',
          "wrong-type",
          'expected a string, got 100 (quote it: "100")',
        ],
        ["error", 'config.evictionHard["pid.available"]', "wrong-type", "expected a string, got an object"],
        [
          "error",
          "config.evictionSoft",
          "wrong-type",
          "expected a map of signal names to strings, got a list",
        ],
        [
          "error",
          "config.evictionSoftGracePeriod",
          "wrong-type",
          'expected a map of signal names to strings, got "memory.available=1m"',
        ],
        [
          "error",
          "config.evictionMaxPodGracePeriod",
          "wrong-type",
          'expected an integer number of seconds, got "60"',
        ],
        [
          "error",
          "config.evictionPressureTransitionPeriod",
          "wrong-type",
          'expected a Go duration string such as "5m0s", got 300',
        ],
        ["error", "config.mergeDefaultEvictionSettings", "wrong-type", 'expected true or false, got "true"'],
        ["error", "config.kernelMemcgNotification", "wrong-type", "expected true or false, got 1"],
        ["error", "config.enforceNodeAllocatable", "wrong-type", 'expected a list of strings, got "pods"'],
      ],
    );
  });

  test("range and duration errors", () => {
    const { issues } = read({
      ...TYPE_META,
      evictionMaxPodGracePeriod: 2 ** 31,
      evictionPressureTransitionPeriod: "5",
      enforceNodeAllocatable: ["pods", 3],
    });
    assert.deepEqual(
      issues.map(([s, p, c, m]) => [s, p, c, m]),
      [
        [
          "error",
          "config.evictionMaxPodGracePeriod",
          "out-of-range",
          "2147483648 does not fit in an int32 (-2147483648 to 2147483647)",
        ],
        [
          "error",
          "config.evictionPressureTransitionPeriod",
          "invalid-duration",
          'time: missing unit in duration "5"',
        ],
        ["error", "config.enforceNodeAllocatable[1]", "wrong-type", "expected a string, got 3"],
      ],
    );
  });

  test("a fractional grace period number is not an int32", () => {
    const { issues } = read({ ...TYPE_META, evictionMaxPodGracePeriod: 1.5 });
    assert.equal(issues[0]?.[2], "wrong-type");
  });
});
