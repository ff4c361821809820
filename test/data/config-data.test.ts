// Real-world kubelet config files (test/fixtures/real-data/kubeletconfig-*.yaml) → the exact thresholds a
// kubelet would run with. Every expected value is written out by hand from the files.
import { REAL_DATA } from "../support/repo-paths.js";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { loadKubeletConfigFile } from "../../src/formats/load-kubelet-config-file.js";
import { locateIssues } from "../../src/formats/position-lookup.js";
import { buildEvictionConfig } from "../../src/core/config/build-eviction-config.js";
import type { EvictionConfig, ThresholdValue } from "../../src/core/model.js";
import { formatQuantity, quantityValue } from "../../src/core/quantity.js";

// Tests run from the repository root (npm test, or node --test from the repository root).
const DATA = REAL_DATA;

/** A threshold value as text; quantities also as exact integers to pin the byte counts. */
function show(v: ThresholdValue | undefined): string | undefined {
  if (v === undefined) return undefined;
  return v.kind === "quantity"
    ? `${formatQuantity(v.quantity)}=${quantityValue(v.quantity)}`
    : `${v.text}=${v.percentage}`;
}

type Row = [id: string, signal: string, value: string, graceMs: number, minReclaim: string | undefined];

interface Expected {
  readonly thresholds: Row[];
  readonly pressureTransitionPeriodMs: number;
  /** The warnings the file deserves: code, path, line. */
  readonly warnings: [string, string, number | undefined][];
}

const MI = (n: number): string => `${n}Mi=${n * 1024 * 1024}`;
const P10 = "10%=0.10000000149011612";
const P5 = "5%=0.05000000074505806";
const P15 = "15%=0.15000000596046448";

const EXPECTED: Record<string, Expected> = {
  // Upstream node e2e config: percent min reclaims, a 30s transition period, no imagefs thresholds.
  "kubeletconfig-1.yaml": {
    thresholds: [
      ["hard/memory.available", "memory.available", MI(250), 0, undefined],
      ["hard/nodefs.available", "nodefs.available", P10, 0, P5],
      ["hard/nodefs.inodesFree", "nodefs.inodesFree", P5, 0, P5],
      ["allocatable/hard/memory.available", "allocatableMemory.available", MI(250), 0, undefined],
    ],
    pressureTransitionPeriodMs: 30_000,
    warnings: [["dropped-default-thresholds", "config.evictionHard", 18]],
  },
  // kubeadm's defaulted output (pre-1.30 defaults: no imagefs.inodesFree), keys in file order.
  "kubeletconfig-2.yaml": {
    thresholds: [
      ["hard/imagefs.available", "imagefs.available", P15, 0, undefined],
      ["hard/memory.available", "memory.available", MI(100), 0, undefined],
      ["hard/nodefs.available", "nodefs.available", P10, 0, undefined],
      ["hard/nodefs.inodesFree", "nodefs.inodesFree", P5, 0, undefined],
      ["allocatable/hard/memory.available", "allocatableMemory.available", MI(100), 0, undefined],
    ],
    pressureTransitionPeriodMs: 300_000,
    warnings: [["dropped-default-thresholds", "config.evictionHard", 35]],
  },
  // EKS nodeadm JSON: no transition period (→ 5m), no imagefs thresholds.
  "kubeletconfig-3.yaml": {
    thresholds: [
      ["hard/memory.available", "memory.available", MI(100), 0, undefined],
      ["hard/nodefs.available", "nodefs.available", P10, 0, undefined],
      ["hard/nodefs.inodesFree", "nodefs.inodesFree", P5, 0, undefined],
      ["allocatable/hard/memory.available", "allocatableMemory.available", MI(100), 0, undefined],
    ],
    pressureTransitionPeriodMs: 300_000,
    warnings: [["dropped-default-thresholds", "config.evictionHard", 55]],
  },
  // OpenShift KubeletConfig wrapper; evictionPressureTransitionPeriod: 0s in a file → 5m.
  "kubeletconfig-4.yaml": {
    thresholds: [
      ["hard/imagefs.available", "imagefs.available", P15, 0, undefined],
      ["hard/memory.available", "memory.available", MI(100), 0, undefined],
      ["hard/nodefs.available", "nodefs.available", P10, 0, undefined],
      ["hard/nodefs.inodesFree", "nodefs.inodesFree", P5, 0, undefined],
      ["allocatable/hard/memory.available", "allocatableMemory.available", MI(100), 0, undefined],
    ],
    pressureTransitionPeriodMs: 300_000,
    warnings: [["dropped-default-thresholds", "config.spec.kubeletConfig.evictionHard", 25]],
  },
  // The docs' min-reclaim example: absolute thresholds, a zero ("0Mi") memory reclaim.
  "kubeletconfig-5.yaml": {
    thresholds: [
      ["hard/memory.available", "memory.available", MI(500), 0, "0=0"],
      ["hard/nodefs.available", "nodefs.available", "1Gi=1073741824", 0, MI(500)],
      ["hard/imagefs.available", "imagefs.available", "100Gi=107374182400", 0, "2Gi=2147483648"],
      ["allocatable/hard/memory.available", "allocatableMemory.available", MI(500), 0, "0=0"],
    ],
    pressureTransitionPeriodMs: 300_000,
    warnings: [["dropped-default-thresholds", "config.evictionHard", 3]],
  },
};

describe("real kubeletconfig data", () => {
  test("every kubeletconfig-*.yaml file has an expectation", () => {
    const files = readdirSync(DATA).filter((f) => /^kubeletconfig-.*\.yaml$/u.test(f));
    assert.deepEqual(files.sort(), Object.keys(EXPECTED).sort());
  });

  for (const [name, want] of Object.entries(EXPECTED)) {
    test(name, async () => {
      const path = join(DATA, name);
      const file = await loadKubeletConfigFile(path);
      assert.ok(file.ok, file.ok ? "" : JSON.stringify(file.issues));
      assert.deepEqual(file.warnings, []);
      const r = buildEvictionConfig({ config: file.value });
      assert.ok(r.ok, r.ok ? "" : JSON.stringify(r.issues, null, 1));
      const c: EvictionConfig = r.config;
      assert.deepEqual(
        c.thresholds.map((t): Row => [
          t.id,
          t.signal,
          show(t.value) ?? "",
          t.gracePeriodMs,
          show(t.minReclaim),
        ]),
        want.thresholds,
      );
      for (const t of c.thresholds) {
        assert.equal(t.operator, "LessThan");
        assert.equal(t.derivedFrom, t.origin === "allocatable" ? "memory.available" : undefined);
      }
      assert.equal(c.pressureTransitionPeriodMs, want.pressureTransitionPeriodMs);
      assert.equal(c.maxPodGracePeriodSeconds, 0);
      assert.equal(c.localStorageCapacityIsolation, true);
      assert.equal(c.kernelMemcgNotification, false);
      assert.deepEqual(c.enforceNodeAllocatable, ["pods"]);
      // Warnings point into the file; in particular no known KubeletConfiguration field warns.
      const located = locateIssues(r.warnings, "config", file.positions, path);
      assert.deepEqual(
        located.map((w) => [w.code, w.path, w.line]),
        want.warnings,
      );
      assert.ok(located.every((w) => w.file === path));
    });
  }

  test("kubeletconfig-4 with the transition period given as a flag instead keeps 0", async () => {
    const file = await loadKubeletConfigFile(join(DATA, "kubeletconfig-4.yaml"));
    assert.ok(file.ok);
    const r = buildEvictionConfig({
      config: file.value,
      flags: ["--eviction-pressure-transition-period=0s"],
    });
    assert.ok(r.ok);
    assert.equal(r.config.pressureTransitionPeriodMs, 0);
    assert.ok(r.warnings.some((w) => w.code === "no-pressure-transition" && w.path === "flags[0]"));
  });
});
