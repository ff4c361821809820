import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  applyConfigSettings,
  parseConfigSetting,
  parseConfigSweep,
  sweepCombinations,
  type ConfigSetting,
} from "./config-settings.js";
import { buildConfigVariant } from "./build-config-variant.js";
import { allocatableMemory, reservedMemory } from "./allocatable-memory.js";

const ok = <T>(r: { ok: true; value: T } | { ok: false; issues: unknown[] }): T => {
  assert.ok(r.ok, JSON.stringify(!r.ok && r.issues));
  return r.value;
};
const problems = (r: { ok: boolean; issues?: { path: string; message: string }[] }): string[] =>
  (r.issues ?? []).map((i) => `${i.path}: ${i.message}`);

describe("config settings (--set, --sweep)", () => {
  test("a map field takes its key after the first dot (signal names have dots); scalars are read by type", () => {
    assert.deepEqual(ok(parseConfigSetting("evictionHard.memory.available=1Gi", "s")), {
      field: "evictionHard",
      key: "memory.available",
      value: "1Gi",
      text: "evictionHard.memory.available=1Gi",
    });
    assert.equal(ok(parseConfigSetting("evictionMaxPodGracePeriod=30", "s")).value, 30);
    assert.equal(ok(parseConfigSetting("mergeDefaultEvictionSettings=false", "s")).value, false);
    assert.equal(ok(parseConfigSetting("kubeReserved.memory=1Gi", "s")).key, "memory");
  });

  test("every kind of bad setting is named with its value", () => {
    assert.deepEqual(problems(parseConfigSetting("evictionHrd.memory.available=1Gi", "--set[0]")), [
      '--set[0]: unknown field "evictionHrd": one of evictionHard, evictionSoft, evictionSoftGracePeriod, evictionMinimumReclaim, kubeReserved, systemReserved, evictionMaxPodGracePeriod, evictionPressureTransitionPeriod, mergeDefaultEvictionSettings may be set',
    ]);
    assert.match(problems(parseConfigSetting("evictionHard=1Gi", "p"))[0] ?? "", /evictionHard is a map/);
    assert.match(problems(parseConfigSetting("evictionMaxPodGracePeriod.x=1", "p"))[0] ?? "", /is not a map/);
    assert.match(problems(parseConfigSetting("evictionMaxPodGracePeriod=soon", "p"))[0] ?? "", /"soon"/);
    assert.match(
      problems(parseConfigSetting("mergeDefaultEvictionSettings=yes", "p"))[0] ?? "",
      /true or false/,
    );
    assert.match(problems(parseConfigSetting("no-equals", "p"))[0] ?? "", /expected FIELD/);
    assert.match(problems(parseConfigSweep("evictionHard.memory.available=1Gi,1Gi", "p"))[0] ?? "", /twice/);
  });

  test("sweeps: every combination, the first varying slowest", () => {
    const a = ok(parseConfigSweep("evictionHard.memory.available=100Mi, 1Gi", "a"));
    const b = ok(parseConfigSweep("evictionMaxPodGracePeriod=0,30,60", "b"));
    const combos = sweepCombinations([a, b]).map((c) => c.map((s) => s.text).join(" "));
    assert.equal(combos.length, 6);
    assert.deepEqual(combos.slice(0, 3), [
      "evictionHard.memory.available=100Mi evictionMaxPodGracePeriod=0",
      "evictionHard.memory.available=100Mi evictionMaxPodGracePeriod=30",
      "evictionHard.memory.available=100Mi evictionMaxPodGracePeriod=60",
    ]);
    assert.deepEqual(sweepCombinations([]), [[]]);
  });

  test("applied to a copy (the document is untouched), and inside an OpenShift KubeletConfig's spec.kubeletConfig", () => {
    const doc = { kind: "KubeletConfiguration", evictionHard: { "nodefs.available": "10%" } };
    const s: ConfigSetting[] = [ok(parseConfigSetting("evictionHard.memory.available=1Gi", "s"))];
    assert.deepEqual(applyConfigSettings(doc, s), {
      kind: "KubeletConfiguration",
      evictionHard: { "nodefs.available": "10%", "memory.available": "1Gi" },
    });
    assert.deepEqual(doc.evictionHard, { "nodefs.available": "10%" });
    const openshift = applyConfigSettings({ kind: "KubeletConfig", spec: { kubeletConfig: {} } }, s);
    assert.deepEqual(openshift, {
      kind: "KubeletConfig",
      spec: { kubeletConfig: { evictionHard: { "memory.available": "1Gi" } } },
    });
  });

  test("a variant: a bad value is the setting's problem; a setting a kubelet flag would override is refused", () => {
    const bad = buildConfigVariant(
      undefined,
      [],
      [ok(parseConfigSetting("evictionHard.memory.available=12Q", "s"))],
      (x) => x.text,
    );
    assert.ok(!bad.ok);
    assert.ok(
      bad.issues.some((i) => i.path === "evictionHard.memory.available=12Q" && /"12Q"/.test(i.message)),
      JSON.stringify(bad.issues),
    );
    const shadowed = buildConfigVariant(
      undefined,
      ["--eviction-hard=memory.available<1Gi"],
      [ok(parseConfigSetting("evictionHard.memory.available=2Gi", "s"))],
      (x) => x.text,
    );
    assert.ok(!shadowed.ok);
    assert.match(shadowed.issues[0]?.message ?? "", /flags of this configuration set evictionHard/);
    const good = buildConfigVariant(
      undefined,
      [],
      [ok(parseConfigSetting("evictionHard.memory.available=2Gi", "s"))],
      (x) => x.text,
    );
    assert.ok(good.ok);
    assert.ok(good.config.thresholds.some((t) => t.id.includes("memory.available") && t.origin === "hard"));
  });

  test("allocatable memory: capacity less the reservations and the hard threshold (a percentage of capacity)", () => {
    const doc = { kubeReserved: { memory: "1Gi" }, systemReserved: { memory: "512Mi" } };
    const reserved = reservedMemory(doc);
    assert.ok(reserved.ok);
    assert.equal(reserved.bytes, 1536n * 1024n * 1024n);
    const pct = buildConfigVariant(
      doc,
      [],
      [ok(parseConfigSetting("evictionHard.memory.available=10%", "s"))],
      (x) => x.text,
    );
    assert.ok(pct.ok);
    const capacity = 16n * 1024n ** 3n;
    // 16Gi - 1.5Gi - 10% of 16Gi (float32 10% of the capacity, as the kubelet takes it).
    const alloc = allocatableMemory(capacity, reserved.bytes, pct.config);
    assert.ok(
      alloc < capacity - reserved.bytes - 1717986900n && alloc > capacity - reserved.bytes - 1717987000n,
      String(alloc),
    );
    const bad = reservedMemory({ kubeReserved: { memory: "lots" } });
    assert.ok(!bad.ok);
    assert.equal(bad.issues[0]?.path, "config.kubeReserved.memory");
  });
});
