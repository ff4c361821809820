// The node file's KubeletConfiguration beyond eviction: maxPods as the kubelet reads it, and one
// warning for every field a kubelet acts on and `evictd run` does not.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { KUBELET_CONFIGURATION_FIELDS } from "../config/kubelet-config-fields.js";
import { IssueList } from "../issues.js";
import { DEFAULT_MAX_PODS, readNodeKubeletSettings } from "./read-node-kubelet-settings.js";
import { RUN_HONOURED_KUBELET_FIELDS, RUN_UNHONOURED_KUBELET_FIELDS } from "./run-kubelet-fields.js";

const TYPE_META = { apiVersion: "kubelet.config.k8s.io/v1beta1", kind: "KubeletConfiguration" };

function read(config: unknown): { maxPods: number; issues: IssueList } {
  const issues = new IssueList();
  const { maxPods } = readNodeKubeletSettings(config, "config", issues);
  return { maxPods, issues };
}

describe("run's KubeletConfiguration fields", () => {
  test("every KubeletConfiguration field is either honoured by run or listed with why it is not, never both", () => {
    const honoured = Object.keys(RUN_HONOURED_KUBELET_FIELDS);
    const unhonoured = Object.keys(RUN_UNHONOURED_KUBELET_FIELDS);
    assert.deepEqual(
      honoured.filter((f) => unhonoured.includes(f)),
      [],
      "a field is in both tables",
    );
    assert.deepEqual(
      [...KUBELET_CONFIGURATION_FIELDS].filter((f) => !honoured.includes(f) && !unhonoured.includes(f)),
      [],
      "a field is in neither table",
    );
    assert.deepEqual(
      [...honoured, ...unhonoured].filter((f) => !KUBELET_CONFIGURATION_FIELDS.has(f)),
      [],
      "a table names a field KubeletConfiguration does not have",
    );
    for (const [field, why] of Object.entries(RUN_UNHONOURED_KUBELET_FIELDS))
      assert.ok(why.length > 10, `${field} has no reason`);
  });

  test("each unhonoured field set gets one warning naming it and the reason; honoured fields get none", () => {
    const config: Record<string, unknown> = { ...TYPE_META };
    for (const f of Object.keys(RUN_UNHONOURED_KUBELET_FIELDS)) config[f] = "x";
    for (const f of Object.keys(RUN_HONOURED_KUBELET_FIELDS)) if (!(f in config)) config[f] = undefined;
    config["evictionHard"] = { "memory.available": "200Mi" };
    config["maxPods"] = 20;
    config["enforceNodeAllocatable"] = ["pods"];
    const { issues } = read(config);
    const warned = issues.warnings.filter((w) => w.code === "not-honoured");
    assert.deepEqual(
      warned.map((w) => w.path),
      Object.keys(RUN_UNHONOURED_KUBELET_FIELDS).map((f) => `config.${f}`),
    );
    for (const w of warned) {
      const field = w.path.slice("config.".length);
      assert.equal(
        w.message,
        `${field} is not honoured by evictd run: ${RUN_UNHONOURED_KUBELET_FIELDS[field] ?? ""}`,
      );
    }
    assert.deepEqual(issues.errors, []);
  });

  test("a config of honoured fields only is silent; null (the field's default) is not a setting", () => {
    const { issues } = read({
      ...TYPE_META,
      evictionHard: { "memory.available": "200Mi" },
      evictionSoft: { "memory.available": "300Mi" },
      maxPods: 50,
      localStorageCapacityIsolation: true,
      cgroupDriver: null,
    });
    assert.deepEqual(issues.items, []);
  });

  test("inside an OpenShift KubeletConfig the warning points at spec.kubeletConfig", () => {
    const { maxPods, issues } = read({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "KubeletConfig",
      spec: { kubeletConfig: { maxPods: 250, podsPerCore: 10 } },
    });
    assert.equal(maxPods, 250);
    assert.deepEqual(
      issues.items.map((i) => i.path),
      ["config.spec.kubeletConfig.podsPerCore"],
    );
  });

  test("enforceNodeAllocatable without pods is a warning: run limits the pods cgroup all the same", () => {
    const { issues } = read({ ...TYPE_META, enforceNodeAllocatable: [] });
    assert.deepEqual(
      issues.items.map((i) => [i.severity, i.path]),
      [["warning", "config.enforceNodeAllocatable"]],
    );
  });
});

describe("maxPods", () => {
  test("default 110 (absent, null, or no config at all); a given value is taken", () => {
    assert.equal(DEFAULT_MAX_PODS, 110);
    assert.equal(read({ ...TYPE_META }).maxPods, 110);
    assert.equal(read({ ...TYPE_META, maxPods: null }).maxPods, 110);
    assert.equal(read(undefined).maxPods, 110);
    assert.equal(read({ ...TYPE_META, maxPods: 3 }).maxPods, 3);
    assert.equal(read({ ...TYPE_META, maxPods: 300n }).maxPods, 300);
  });

  test("negative: the kubelet's own validation message; not an int32: an error naming the value", () => {
    const negative = read({ ...TYPE_META, maxPods: -1 }).issues.errors;
    assert.deepEqual(
      negative.map((i) => [i.path, i.message]),
      [["config.maxPods", "invalid configuration: maxPods (--max-pods) -1 must not be a negative number"]],
    );
    for (const bad of ["110", 1.5, true, 2 ** 31]) {
      const errors = read({ ...TYPE_META, maxPods: bad }).issues.errors;
      assert.equal(errors.length, 1, String(bad));
      assert.equal(errors[0]?.path, "config.maxPods");
      assert.ok(errors[0]?.message.includes(String(bad)), errors[0]?.message);
    }
  });

  test("0 is valid but admits nothing: a warning says so", () => {
    const r = read({ ...TYPE_META, maxPods: 0 });
    assert.equal(r.maxPods, 0);
    assert.deepEqual(
      r.issues.items.map((i) => [i.severity, i.path]),
      [["warning", "config.maxPods"]],
    );
  });
});
