/** The settings of a cluster node from its configz, and configz as a replayable scenario header. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { InputError } from "../../errors.js";
import { evictionSettingsFromConfigz, scenarioConfigFromConfigz } from "./eviction-settings.js";

describe("scenarioConfigFromConfigz", () => {
  test("adds apiVersion and kind; a zero transition period goes out as the flag", () => {
    const r = scenarioConfigFromConfigz({
      evictionHard: { "memory.available": "1Gi" },
      evictionPressureTransitionPeriod: "0s",
    });
    assert.deepEqual(r.document, {
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      kind: "KubeletConfiguration",
      evictionHard: { "memory.available": "1Gi" },
    });
    assert.deepEqual(r.flags, ["--eviction-pressure-transition-period=0s"]);
  });

  test("a non-zero period stays in the document; a non-object is an empty configuration", () => {
    assert.deepEqual(scenarioConfigFromConfigz({ evictionPressureTransitionPeriod: "5m0s" }).flags, []);
    assert.deepEqual(scenarioConfigFromConfigz(null).document, {
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      kind: "KubeletConfiguration",
    });
  });
});

describe("evictionSettingsFromConfigz", () => {
  test("the kubelet's thresholds, with the origin named", () => {
    const s = evictionSettingsFromConfigz(
      { evictionHard: { "memory.available": "250Mi" }, evictionPressureTransitionPeriod: "0s" },
      "n1",
    );
    assert.deepEqual(
      s.config.thresholds.map((t) => t.id),
      ["hard/memory.available", "allocatable/hard/memory.available"],
    );
    assert.equal(s.config.pressureTransitionPeriodMs, 0);
    assert.equal(s.origin, "configz of node n1");
    assert.ok(s.warnings.every((w) => w.message.endsWith("(in the configz of node n1)")));
  });

  test("unusable settings: an InputError whose messages say they came from configz", () => {
    assert.throws(
      () => evictionSettingsFromConfigz({ evictionHard: { "memory.available": "lots" } }, "n1"),
      (e: unknown) =>
        e instanceof InputError &&
        e.issues.some((i) => i.severity === "error" && /\(in the configz of node n1\)$/.test(i.message)),
    );
  });
});
