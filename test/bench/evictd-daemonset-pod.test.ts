/**
 * evictd's pod as the cluster reaction bench builds it from deploy/daemonset.yaml: what the real
 * manifest gives, and a manifest the bench cannot use named with its file and field.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { readEvictdDaemonSetPod } from "../../bench/evictd-daemonset-pod.js";
import { REPO_ROOT } from "../support/repo-paths.js";

describe("evictd's DaemonSet pod, read from the manifest", () => {
  it("the deployed manifest: a Burstable system-node-critical pod with a 256Mi limit", () => {
    const pod = readEvictdDaemonSetPod(path.join(REPO_ROOT, "deploy", "daemonset.yaml"));
    assert.equal(pod.namespace, "evictd");
    assert.equal(pod.daemonSet, "evictd");
    assert.equal(pod.priorityClassName, "system-node-critical");
    assert.equal(pod.priority, 2_000_001_000);
    assert.equal(pod.qos, "Burstable");
    assert.equal(pod.memoryLimitBytes, 256 * 1024 * 1024);
    assert.equal(pod.cpuRequestMilli, 50);
    assert.equal(pod.containerName, "evictd");
    assert.deepEqual(pod.resources, {
      requests: { cpu: "50m", memory: "64Mi" },
      limits: { memory: "256Mi" },
    });
    // NODE_NAME comes from the downward API (a kubelet's part): only literal values are taken.
    assert.deepEqual(pod.env, { NODE_OPTIONS: "--max-old-space-size=160" });
    assert.equal(pod.labels["app.kubernetes.io/name"], "evictd");
  });

  it("a manifest it cannot use is named with its file and field", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "evictd-ds-test-"));
    try {
      const file = path.join(dir, "ds.yaml");
      writeFileSync(file, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: evictd\n");
      assert.throws(() => readEvictdDaemonSetPod(file), new RegExp(`^Error: ${file}: no DaemonSet$`));
      writeFileSync(
        file,
        [
          "kind: DaemonSet",
          "metadata: {name: evictd, namespace: evictd}",
          "spec:",
          "  template:",
          "    spec:",
          "      containers:",
          "        - name: evictd",
          "          resources: {limits: {memory: 256}}",
        ].join("\n"),
      );
      assert.throws(
        () => readEvictdDaemonSetPod(file),
        /ds\.yaml: DaemonSet container resources\.limits\.memory: a string expected, got 256/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
