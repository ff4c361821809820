import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IssueList } from "../issues.js";
import { decodeNodeEnvironment } from "./decode-node-environment.js";
import { nodeEnvironment, statsProviderOf } from "./node-environment.js";

const NODE = {
  apiVersion: "v1",
  kind: "Node",
  status: {
    nodeInfo: {
      kernelVersion: "6.8.0-1015-gcp",
      osImage: "Debian GNU/Linux 12 (bookworm)",
      containerRuntimeVersion: "containerd://2.1.3",
      kubeletVersion: "v1.35.0",
      operatingSystem: "linux",
    },
  },
};

describe("nodeEnvironment", () => {
  test("the Node's nodeInfo, the configz's stats provider and the cgroup version", () => {
    assert.deepEqual(nodeEnvironment({ node: NODE, kubeletConfig: {}, cgroupVersion: 2 }), {
      kubeletVersion: "v1.35.0",
      kernelVersion: "6.8.0-1015-gcp",
      osImage: "Debian GNU/Linux 12 (bookworm)",
      containerRuntimeVersion: "containerd://2.1.3",
      statsProvider: "cadvisor",
      cgroupVersion: 2,
    });
  });

  test("nothing known: undefined; only what is known otherwise", () => {
    assert.equal(nodeEnvironment({}), undefined);
    assert.equal(nodeEnvironment({ node: { status: { nodeInfo: { kubeletVersion: "" } } } }), undefined);
    assert.deepEqual(nodeEnvironment({ cgroupVersion: 1 }), { cgroupVersion: 1 });
    // Without a configz, the stats provider is not known, whatever the Node says.
    assert.equal(nodeEnvironment({ node: NODE })?.statsProvider, undefined);
  });
});

describe("statsProviderOf", () => {
  test("the gate as set wins, whatever the version", () => {
    const on = { featureGates: { PodAndContainerStatsFromCRI: true } };
    const off = { featureGates: { PodAndContainerStatsFromCRI: false } };
    assert.equal(statsProviderOf(on, "v1.35.0"), "cri");
    assert.equal(statsProviderOf(on, undefined), "cri");
    assert.equal(statsProviderOf(off, "v1.40.0"), "cadvisor");
  });

  test("the gate unset: the kubelet's default (off) where it is known, through 1.37", () => {
    assert.equal(statsProviderOf({}, "v1.34.2"), "cadvisor");
    assert.equal(statsProviderOf({ featureGates: { KubeletPSI: true } }, "v1.37.0-eks-1a2b3c"), "cadvisor");
    assert.equal(statsProviderOf({}, "v1.38.0"), undefined, "a later default is not known here");
    assert.equal(statsProviderOf({}, undefined), undefined);
    assert.equal(
      statsProviderOf({}, "1.2"),
      "cadvisor",
      "versions before the gate had no CRI provider of this kind",
    );
    assert.equal(statsProviderOf(undefined, "v1.35.0"), undefined, "no configuration, nothing known");
  });
});

describe("decodeNodeEnvironment", () => {
  test("every valid field, as written", () => {
    const issues = new IssueList();
    const env = {
      statsProvider: "cri",
      kubeletVersion: "v1.36.1",
      kernelVersion: "6.12.0",
      osImage: "Bottlerocket OS 1.40.0",
      containerRuntimeVersion: "containerd://2.1.1",
      cgroupVersion: 2,
    };
    assert.deepEqual(decodeNodeEnvironment(env, "environment", issues), env);
    assert.deepEqual(issues.items, []);
  });

  test("informational: bad fields are warnings and left out, never errors", () => {
    const issues = new IssueList();
    const env = decodeNodeEnvironment(
      { statsProvider: "kubelet", cgroupVersion: "2", kubeletVersion: 135, osImage: "Ubuntu", swap: true },
      "environment",
      issues,
    );
    assert.deepEqual(env, { osImage: "Ubuntu" });
    assert.deepEqual(
      issues.items.map((i) => `${i.severity} ${i.path}: ${i.message}`),
      [
        'warning environment.statsProvider: expected cadvisor or cri, got "kubelet" (ignored)',
        'warning environment.cgroupVersion: expected 1 or 2, got "2" (ignored)',
        "warning environment.kubeletVersion: expected a string, got 135 (ignored)",
        'warning environment.swap: unknown field "swap" (ignored)',
      ],
    );
    const other = new IssueList();
    assert.equal(decodeNodeEnvironment("v1.35", "environment", other), undefined);
    assert.deepEqual(
      other.items.map((i) => i.severity),
      ["warning"],
    );
    assert.equal(decodeNodeEnvironment(null, "environment", other), undefined);
  });
});
