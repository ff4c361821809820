// The header's environment of a cluster recording: what the Node and the kubelet's own configz say,
// nothing from a configuration file given instead, and the header line that carries it.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { EvictionConfig } from "../../core/model.js";
import type { ClusterEvictionSettings } from "./eviction-settings.js";
import { traceEnvironment } from "./trace-environment.js";
import { TraceRecorder } from "./trace-recorder.js";

const NODE = {
  metadata: { name: "n1" },
  status: { nodeInfo: { kubeletVersion: "v1.36.0", containerRuntimeVersion: "cri-o://1.36.0" } },
};

function settings(document: unknown, fromConfigz: boolean): ClusterEvictionSettings {
  return {
    config: {} as EvictionConfig,
    document,
    flags: [],
    warnings: [],
    origin: fromConfigz ? "configz of node n1" : "kubelet.yaml",
    ...(fromConfigz ? { fromConfigz } : {}),
  };
}

const CRI_GATE = { featureGates: { PodAndContainerStatsFromCRI: true } };

describe("traceEnvironment", () => {
  test("configz: its feature gate names the stats provider", () => {
    assert.deepEqual(traceEnvironment(NODE, settings(CRI_GATE, true), 2), {
      environment: {
        kubeletVersion: "v1.36.0",
        containerRuntimeVersion: "cri-o://1.36.0",
        statsProvider: "cri",
        cgroupVersion: 2,
      },
    });
    assert.equal(traceEnvironment(NODE, settings({}, true)).environment?.statsProvider, "cadvisor");
  });

  test("a configuration file given instead says nothing of the node's stats provider", () => {
    assert.deepEqual(traceEnvironment(NODE, settings(CRI_GATE, false)), {
      environment: { kubeletVersion: "v1.36.0", containerRuntimeVersion: "cri-o://1.36.0" },
    });
  });

  test("nothing known: no field at all", () => {
    assert.deepEqual(traceEnvironment(undefined, settings(CRI_GATE, false)), {});
  });

  test("the header line carries it after the Node; without it, no key", () => {
    const header = (extra: object): Record<string, unknown> => {
      const lines: string[] = [];
      new TraceRecorder({ start: 0, config: {}, node: NODE, evictedPods: "keep", pods: [], ...extra }, (l) =>
        lines.push(l),
      );
      return JSON.parse(lines[0] ?? "") as Record<string, unknown>;
    };
    const env = traceEnvironment(NODE, settings({}, true), 1);
    assert.deepEqual(Object.keys(header(env)), [
      "start",
      "config",
      "node",
      "environment",
      "evictedPods",
      "pods",
    ]);
    assert.deepEqual(header(env)["environment"], { ...env.environment });
    assert.equal("environment" in header({}), false);
  });
});
