// The KubeletConfiguration's container log rotation fields: the kubelet's defaults and validation.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IssueList } from "../issues.js";
import { DEFAULT_CONTAINER_LOG_POLICY, readContainerLogPolicy } from "./container-log-settings.js";

const TYPE_META = { apiVersion: "kubelet.config.k8s.io/v1beta1", kind: "KubeletConfiguration" };

function read(raw: unknown): { policy: ReturnType<typeof readContainerLogPolicy>; issues: string[] } {
  const issues = new IssueList();
  const policy = readContainerLogPolicy(raw, "config", issues);
  return { policy, issues: issues.items.map((i) => `${i.severity} ${i.path}: ${i.message}`) };
}

describe("readContainerLogPolicy", () => {
  test("absent: the kubelet's defaults, 10Mi, 5 files, every 10s", () => {
    assert.deepEqual(read(undefined), { policy: DEFAULT_CONTAINER_LOG_POLICY, issues: [] });
    assert.deepEqual(read(TYPE_META), { policy: DEFAULT_CONTAINER_LOG_POLICY, issues: [] });
    assert.deepEqual(DEFAULT_CONTAINER_LOG_POLICY, {
      maxBytes: 10 * 1024 * 1024,
      maxFiles: 5,
      monitorIntervalMs: 10_000,
    });
  });

  test("set: a quantity, a count, a Go duration", () => {
    assert.deepEqual(
      read({
        ...TYPE_META,
        containerLogMaxSize: "1Mi",
        containerLogMaxFiles: 3,
        containerLogMonitorInterval: "3s",
      }),
      { policy: { maxBytes: 1024 * 1024, maxFiles: 3, monitorIntervalMs: 3000 }, issues: [] },
    );
    assert.equal(read({ containerLogMaxSize: "1.5Mi" }).policy.maxBytes, 1572864);
    assert.equal(read({ containerLogMaxSize: "2k" }).policy.maxBytes, 2000);
  });

  test("inside an OpenShift KubeletConfig, under its path", () => {
    const { policy, issues } = read({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "KubeletConfig",
      spec: { kubeletConfig: { containerLogMaxFiles: 1 } },
    });
    assert.equal(policy.maxFiles, 5);
    assert.deepEqual(issues, [
      "error config.spec.kubeletConfig.containerLogMaxFiles: must be greater than 1 (the live log and at least one rotated one), got 1",
    ]);
  });

  test("the kubelet's validation, every problem at once", () => {
    const { issues } = read({
      ...TYPE_META,
      containerLogMaxSize: "lots",
      containerLogMaxFiles: 1,
      containerLogMonitorInterval: "2s",
    });
    assert.equal(issues.length, 3);
    assert.match(issues[0] ?? "", /^error config\.containerLogMaxSize: invalid quantity "lots"/);
    assert.match(issues[1] ?? "", /^error config\.containerLogMaxFiles: must be greater than 1 .*got 1$/);
    assert.match(
      issues[2] ?? "",
      /^error config\.containerLogMonitorInterval: must be at least 3s, got "2s"$/,
    );
  });

  test("wrong types, a fraction of a byte, a non-integer count, a bad duration", () => {
    assert.deepEqual(read({ containerLogMaxSize: 10 }).issues, [
      'error config.containerLogMaxSize: expected a quantity string such as "10Mi", got 10 (quote it: "10")',
    ]);
    assert.match(read({ containerLogMaxSize: "500m" }).issues[0] ?? "", /not a whole number of bytes/);
    assert.match(
      read({ containerLogMaxFiles: 2.5 }).issues[0] ?? "",
      /expected an integer number of files, got 2.5/,
    );
    assert.match(
      read({ containerLogMaxFiles: "5" }).issues[0] ?? "",
      /expected an integer number of files, got "5"/,
    );
    assert.match(
      read({ containerLogMonitorInterval: "10" }).issues[0] ?? "",
      /invalid-duration|missing unit/,
    );
    assert.match(read({ containerLogMonitorInterval: 10 }).issues[0] ?? "", /expected a Go duration string/);
  });

  test("a negative size turns rotation off, as in the kubelet, with a warning", () => {
    const { policy, issues } = read({ containerLogMaxSize: "-1" });
    assert.equal(policy.maxBytes, -1);
    assert.equal(issues.length, 1);
    assert.match(
      issues[0] ?? "",
      /^warning config\.containerLogMaxSize: "-1" is negative: container logs are never rotated/,
    );
  });
});
