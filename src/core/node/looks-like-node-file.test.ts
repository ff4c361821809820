// A node file given where a KubeletConfiguration is expected is recognised, a kubelet's config never.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { nodeFileEvidence } from "./looks-like-node-file.js";

describe("nodeFileEvidence", () => {
  test("the node file's kind or apiVersion, or (with neither) a field only node files have", () => {
    assert.equal(nodeFileEvidence({ kind: "EvictdNode" }), "kind EvictdNode");
    assert.equal(nodeFileEvidence({ apiVersion: "evictd.io/v1alpha1" }), "apiVersion evictd.io/v1alpha1");
    assert.equal(
      nodeFileEvidence({ name: "n", capacity: { memory: "1Gi" }, stateDir: "s", manifestDir: "m" }),
      "node file fields capacity, stateDir, manifestDir",
    );
    assert.equal(nodeFileEvidence({ manifestDir: "m" }), "node file fields manifestDir");
  });

  test("a KubeletConfiguration, typed or bare, and anything not a mapping, is not a node file", () => {
    assert.equal(
      nodeFileEvidence({
        apiVersion: "kubelet.config.k8s.io/v1beta1",
        kind: "KubeletConfiguration",
        evictionHard: { "memory.available": "1Gi" },
      }),
      undefined,
    );
    assert.equal(nodeFileEvidence({ evictionHard: {}, maxPods: 10, staticPodPath: "/etc/k8s" }), undefined);
    // Typed as a KubeletConfiguration: taken as one, whatever else it holds.
    assert.equal(nodeFileEvidence({ kind: "KubeletConfiguration", stateDir: "x" }), undefined);
    for (const v of [null, "text", 3, []]) assert.equal(nodeFileEvidence(v), undefined);
  });
});
