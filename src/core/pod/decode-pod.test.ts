// Tests for decoding v1 Pods with API defaults, and for the issues collected on bad input.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { IssueList } from "../issues.js";
import type { Pod } from "../model.js";
import { formatQuantity, parseQuantity, QuantityError } from "../quantity.js";
import { decodePod, decodePodList } from "./decode-pod.js";
import { podQos } from "./qos.js";

function decodeOk(raw: unknown): Pod {
  const issues = new IssueList();
  const pod = decodePod(raw, "pod", issues);
  assert.deepEqual(issues.items, []);
  assert.ok(pod);
  return pod;
}

function minimal(extra: { metadata?: object; spec?: object; status?: object } = {}): object {
  return {
    metadata: { name: "web", ...extra.metadata },
    spec: { containers: [{ name: "app" }], ...extra.spec },
    ...(extra.status !== undefined ? { status: extra.status } : {}),
  };
}

function fmt(list: Readonly<Record<string, unknown>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(list).map(([k, v]) => [k, formatQuantity(v as ReturnType<typeof parseQuantity>)]),
  );
}

function quantityMessage(text: string): string {
  try {
    parseQuantity(text);
  } catch (err) {
    if (err instanceof QuantityError) return err.message;
  }
  throw new Error(`${text} unexpectedly parsed`);
}

describe("decodePod defaults", () => {
  test("metadata and spec defaults", () => {
    const pod = decodeOk(minimal());
    assert.equal(pod.namespace, "default");
    assert.equal(pod.uid, "default/web");
    assert.equal(pod.key, "default/web");
    assert.equal(pod.terminationGracePeriodSeconds, 30);
    assert.equal(pod.priority, 0);
    assert.equal(pod.prioritySet, false);
    assert.deepEqual(pod.annotations, {});
    assert.deepEqual(pod.labels, {});
    assert.deepEqual(pod.initContainers, []);
    assert.deepEqual(pod.volumes, []);
    assert.deepEqual(pod.tolerations, []);
    assert.equal(pod.podResources, undefined);
    assert.equal(pod.statusQosClass, undefined);
  });

  test("explicit metadata is kept", () => {
    const pod = decodeOk(
      minimal({
        metadata: {
          namespace: "kube-system",
          uid: "1b1c-22",
          labels: { app: "web" },
          annotations: { "kubernetes.io/config.source": "file" },
          creationTimestamp: "2026-06-26T10:12:51Z",
          generation: 3,
        },
        spec: { terminationGracePeriodSeconds: 1800 },
        status: { phase: "Running", qosClass: "Burstable" },
      }),
    );
    assert.equal(pod.key, "kube-system/web");
    assert.equal(pod.uid, "1b1c-22");
    assert.deepEqual(pod.labels, { app: "web" });
    assert.equal(pod.annotations["kubernetes.io/config.source"], "file");
    assert.equal(pod.creationTimestamp, Date.UTC(2026, 5, 26, 10, 12, 51));
    assert.equal(pod.generation, 3);
    assert.equal(pod.terminationGracePeriodSeconds, 1800);
    assert.equal(pod.phase, "Running");
    assert.equal(pod.statusQosClass, "Burstable");
  });

  const priorityCases = [
    { name: "explicit priority", spec: { priority: 5 }, want: [5, true] },
    {
      name: "explicit priority wins over class",
      spec: { priority: 7, priorityClassName: "system-node-critical" },
      want: [7, true],
    },
    {
      name: "system-node-critical",
      spec: { priorityClassName: "system-node-critical" },
      want: [2000001000, true],
    },
    {
      name: "system-cluster-critical",
      spec: { priorityClassName: "system-cluster-critical" },
      want: [2000000000, true],
    },
    { name: "custom class without priority", spec: { priorityClassName: "high" }, want: [0, false] },
    { name: "nothing", spec: {}, want: [0, false] },
  ] as const;
  for (const c of priorityCases) {
    test(`priority: ${c.name}`, () => {
      const pod = decodeOk(minimal({ spec: c.spec }));
      assert.deepEqual([pod.priority, pod.prioritySet], c.want);
    });
  }

  test("requests default to limits per resource; explicit requests stay", () => {
    const pod = decodeOk(
      minimal({
        spec: {
          containers: [
            {
              name: "app",
              resources: {
                limits: { cpu: "1", memory: "1Gi", "ephemeral-storage": "2Gi" },
                requests: { memory: "512Mi" },
              },
            },
          ],
          initContainers: [{ name: "init", resources: { limits: { memory: "64Mi" } } }],
        },
      }),
    );
    const app = pod.containers[0]!;
    assert.deepEqual(fmt(app.resources.requests), { memory: "512Mi", cpu: "1", "ephemeral-storage": "2Gi" });
    assert.deepEqual(fmt(app.resources.limits), { cpu: "1", memory: "1Gi", "ephemeral-storage": "2Gi" });
    assert.deepEqual(fmt(pod.initContainers[0]!.resources.requests), { memory: "64Mi" });
  });

  test("resource quantities are rounded up to milli scale, numbers are read as quantities", () => {
    const pod = decodeOk(
      minimal({
        spec: {
          containers: [
            {
              name: "app",
              resources: { requests: { cpu: "100u", memory: 1000, "ephemeral-storage": "500m" } },
            },
          ],
        },
      }),
    );
    assert.deepEqual(fmt(pod.containers[0]!.resources.requests), {
      cpu: "1m",
      memory: "1k",
      "ephemeral-storage": "500m",
    });
  });

  test("init containers keep restartPolicy; command, args and literal env values are kept", () => {
    const pod = decodeOk(
      minimal({
        spec: {
          containers: [
            {
              name: "app",
              command: ["/bin/app"],
              args: ["--port", "80"],
              env: [
                { name: "A", value: "1" },
                { name: "B", valueFrom: { fieldRef: { fieldPath: "x" } } },
              ],
            },
          ],
          initContainers: [{ name: "sidecar", restartPolicy: "Always" }, { name: "setup" }],
        },
      }),
    );
    assert.deepEqual(pod.containers[0], {
      name: "app",
      resources: { requests: {}, limits: {} },
      command: ["/bin/app"],
      args: ["--port", "80"],
      env: [{ name: "A", value: "1" }, { name: "B" }],
    });
    assert.equal(pod.initContainers[0]!.restartPolicy, "Always");
    assert.equal(pod.initContainers[1]!.restartPolicy, undefined);
  });

  test("volumes are classified; a volume without a source is an emptyDir", () => {
    const pod = decodeOk(
      minimal({
        spec: {
          volumes: [
            { name: "cache", emptyDir: {} },
            { name: "tmpfs", emptyDir: { medium: "Memory", sizeLimit: "1Gi" } },
            { name: "bare" },
            { name: "host", hostPath: { path: "/tmp" } },
            { name: "repo", gitRepo: { repository: "x" } },
            { name: "cm", configMap: { name: "c" } },
            { name: "sec", secret: { secretName: "s" } },
            { name: "proj", projected: { sources: [] } },
            { name: "dapi", downwardAPI: { items: [] } },
            { name: "data", persistentVolumeClaim: { claimName: "d" } },
            { name: "nfs", nfs: { server: "s", path: "/" } },
          ],
        },
      }),
    );
    const summary = pod.volumes.map((v) => [
      v.name,
      v.kind,
      v.medium,
      v.sizeLimit === undefined ? undefined : formatQuantity(v.sizeLimit),
    ]);
    assert.deepEqual(summary, [
      ["cache", "emptyDir", "", undefined],
      ["tmpfs", "emptyDir", "Memory", "1Gi"],
      ["bare", "emptyDir", "", undefined],
      ["host", "hostPath", undefined, undefined],
      ["repo", "gitRepo", undefined, undefined],
      ["cm", "configMap", undefined, undefined],
      ["sec", "secret", undefined, undefined],
      ["proj", "projected", undefined, undefined],
      ["dapi", "downwardAPI", undefined, undefined],
      ["data", "persistentVolumeClaim", undefined, undefined],
      ["nfs", "other", undefined, undefined],
    ]);
  });

  test("tolerations, overhead and pod-level resources", () => {
    const pod = decodeOk(
      minimal({
        spec: {
          tolerations: [
            { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
            { operator: "Exists", tolerationSeconds: 300 },
          ],
          overhead: { memory: "10Mi" },
          resources: { requests: { memory: "1Gi" }, limits: { memory: "2Gi" } },
        },
      }),
    );
    assert.deepEqual(pod.tolerations, [
      { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
      { operator: "Exists" },
    ]);
    assert.deepEqual(fmt(pod.overhead ?? {}), { memory: "10Mi" });
    assert.ok(pod.podResources);
    assert.deepEqual(fmt(pod.podResources.requests), { memory: "1Gi" });
    assert.deepEqual(fmt(pod.podResources.limits), { memory: "2Gi" });
  });

  test("pod-level requests default from container requests, then from pod-level limits", () => {
    const pod = decodeOk(
      minimal({
        spec: {
          containers: [
            { name: "a", resources: { requests: { memory: "100Mi" } } },
            { name: "b", resources: { requests: { memory: "200Mi", "ephemeral-storage": "1Gi" } } },
          ],
          resources: { limits: { cpu: "2", memory: "1Gi" } },
        },
      }),
    );
    // memory from the containers' aggregate (300Mi), cpu from the pod-level limit;
    // ephemeral-storage is not a pod-level resource.
    assert.deepEqual(fmt(pod.podResources!.requests), { memory: "300Mi", cpu: "2" });
  });

  test("pod-level hugepages limits default from the containers' aggregate", () => {
    const pod = decodeOk(
      minimal({
        spec: {
          containers: [{ name: "a", resources: { limits: { "hugepages-2Mi": "4Mi", memory: "1Gi" } } }],
          resources: { requests: { cpu: "1" } },
        },
      }),
    );
    assert.deepEqual(fmt(pod.podResources!.limits), { "hugepages-2Mi": "4Mi" });
    // memory: the container's request (defaulted from its limit) aggregated; hugepages from the new limit.
    assert.deepEqual(fmt(pod.podResources!.requests), { cpu: "1", memory: "1Gi", "hugepages-2Mi": "4Mi" });
  });

  test("an empty spec.resources object is kept (it switches QoS to the pod-level rule)", () => {
    const pod = decodeOk(minimal({ spec: { resources: {} } }));
    assert.deepEqual(pod.podResources, { requests: {}, limits: {} });
  });
});

describe("decodePod errors", () => {
  function errors(raw: unknown): { path: string; code: string; message: string }[] {
    const issues = new IssueList();
    const pod = decodePod(raw, "pods[3]", issues);
    assert.equal(pod, undefined);
    return issues.items.map((i) => ({ path: i.path, code: i.code, message: i.message }));
  }

  test("an unparsable quantity names the field path, the value and the quantity error", () => {
    const got = errors({
      metadata: { name: "web" },
      spec: { containers: [{ name: "app", resources: { requests: { memory: "1K" } } }] },
    });
    assert.equal(got.length, 1);
    assert.equal(got[0]!.path, "pods[3].spec.containers[0].resources.requests.memory");
    assert.equal(got[0]!.code, "invalid-quantity");
    assert.match(got[0]!.message, /"1K"/);
    assert.ok(got[0]!.message.includes(quantityMessage("1K")), got[0]!.message);
  });

  test("every problem of a pod is collected", () => {
    const got = errors({
      metadata: { name: 42, annotations: { a: 1 }, creationTimestamp: "yesterday" },
      spec: {
        priority: "high",
        terminationGracePeriodSeconds: 1.5,
        containers: [
          { name: "app", resources: { requests: { memory: "-1Gi" } } },
          { name: "app", resources: { requests: { cpu: "2" }, limits: { cpu: "1" } } },
          { resources: { limits: { "ephemeral-storage": "lots" } } },
        ],
        volumes: [{ name: "v", emptyDir: { sizeLimit: "1x" } }],
        tolerations: ["bad"],
      },
      status: { qosClass: "Premium" },
    });
    const byPath = (x: string[], y: string[]): number => (x[0]! < y[0]! ? -1 : x[0]! > y[0]! ? 1 : 0);
    assert.deepEqual(
      got.map((g) => [g.path, g.code]).sort(byPath),
      [
        ["pods[3].metadata.name", "invalid-type"],
        ["pods[3].metadata.annotations.a", "invalid-type"],
        ["pods[3].metadata.creationTimestamp", "invalid-value"],
        ["pods[3].spec.containers[0].resources.requests.memory", "invalid-value"],
        // Only a warning (see "a request above its limit" below), collected with the errors.
        ["pods[3].spec.containers[1].resources.requests.cpu", "request-above-limit"],
        ["pods[3].spec.containers[2].name", "missing-field"],
        ['pods[3].spec.containers[2].resources.limits["ephemeral-storage"]', "invalid-quantity"],
        ["pods[3].spec.containers[1].name", "duplicate-name"],
        ["pods[3].spec.priority", "invalid-type"],
        ["pods[3].spec.terminationGracePeriodSeconds", "invalid-type"],
        ["pods[3].spec.volumes[0].emptyDir.sizeLimit", "invalid-quantity"],
        ["pods[3].spec.tolerations[0]", "invalid-type"],
        ["pods[3].status.qosClass", "invalid-value"],
      ].sort(byPath),
    );
  });

  test("messages name the offending value", () => {
    const got = errors({
      metadata: { name: "web" },
      spec: { containers: [{ name: "app", resources: { requests: { memory: "-2Gi" } } }] },
    });
    assert.deepEqual(got, [
      {
        path: "pods[3].spec.containers[0].resources.requests.memory",
        code: "invalid-value",
        message: '"-2Gi" must be greater than or equal to 0',
      },
    ]);
  });

  const missing = [
    { name: "no metadata", raw: { spec: { containers: [{ name: "a" }] } }, path: "pods[3].metadata.name" },
    {
      name: "empty name",
      raw: { metadata: { name: "" }, spec: { containers: [{ name: "a" }] } },
      path: "pods[3].metadata.name",
    },
    { name: "no containers", raw: { metadata: { name: "w" }, spec: {} }, path: "pods[3].spec.containers" },
    {
      name: "empty containers",
      raw: { metadata: { name: "w" }, spec: { containers: [] } },
      path: "pods[3].spec.containers",
    },
  ];
  for (const c of missing) {
    test(`missing field: ${c.name}`, () => {
      assert.deepEqual(
        errors(c.raw).map((g) => [g.path, g.code]),
        [[c.path, "missing-field"]],
      );
    });
  }

  test("not an object, or another kind", () => {
    assert.deepEqual(
      errors("web").map((g) => g.path),
      ["pods[3]"],
    );
    assert.deepEqual(
      errors({ kind: "Service", metadata: { name: "w" }, spec: { containers: [{ name: "a" }] } }).map(
        (g) => g.path,
      ),
      ["pods[3].kind"],
    );
  });
});

describe("decodePodList", () => {
  const a = { metadata: { name: "a" }, spec: { containers: [{ name: "c" }] } };
  const b = { metadata: { name: "b", namespace: "ns" }, spec: { containers: [{ name: "c" }] } };

  const shapes = [
    { name: "single pod", raw: a, keys: ["default/a"] },
    { name: "array", raw: [a, b], keys: ["default/a", "ns/b"] },
    {
      name: "PodList",
      raw: { kind: "PodList", apiVersion: "v1", items: [a, b] },
      keys: ["default/a", "ns/b"],
    },
    { name: "kubectl List", raw: { kind: "List", apiVersion: "v1", items: [b] }, keys: ["ns/b"] },
    { name: "PodList with null items", raw: { kind: "PodList", items: null }, keys: [] },
  ];
  for (const c of shapes) {
    test(c.name, () => {
      const issues = new IssueList();
      const pods = decodePodList(c.raw, "pods", issues);
      assert.deepEqual(issues.items, []);
      assert.deepEqual(
        pods.map((p) => p.key),
        c.keys,
      );
    });
  }

  test("bad pods are reported with list paths and left out; the rest decode", () => {
    const issues = new IssueList();
    const bad = {
      metadata: { name: "x" },
      spec: { containers: [{ name: "c", resources: { limits: { memory: "1Q" } } }] },
    };
    const pods = decodePodList({ kind: "PodList", items: [a, bad, b] }, "pods", issues);
    assert.deepEqual(
      pods.map((p) => p.key),
      ["default/a", "ns/b"],
    );
    assert.deepEqual(
      issues.items.map((i) => i.path),
      ["pods.items[1].spec.containers[0].resources.limits.memory"],
    );
  });

  test("duplicate pods are reported and dropped", () => {
    const issues = new IssueList();
    const sameUid = { metadata: { name: "z", uid: "u1" }, spec: { containers: [{ name: "c" }] } };
    const otherWithUid = { metadata: { name: "y", uid: "u1" }, spec: { containers: [{ name: "c" }] } };
    const pods = decodePodList([a, a, sameUid, otherWithUid], "pods", issues);
    assert.deepEqual(
      pods.map((p) => p.key),
      ["default/a", "default/z"],
    );
    assert.deepEqual(
      issues.items.map((i) => [i.path, i.code, i.message]),
      [
        ["pods[1]", "duplicate-pod", "pod default/a is already defined at pods[0]"],
        ["pods[3]", "duplicate-pod", 'uid "u1" is already defined at pods[2]'],
      ],
    );
  });

  test("hundreds of pods decode in linear time", () => {
    const items = Array.from({ length: 3000 }, (_, i) => ({
      metadata: { name: `p${i}` },
      spec: { containers: [{ name: "c", resources: { requests: { memory: "1Mi" } } }] },
    }));
    const issues = new IssueList();
    const started = performance.now();
    const pods = decodePodList({ kind: "PodList", items }, "pods", issues);
    assert.equal(pods.length, 3000);
    assert.ok(performance.now() - started < 2000);
  });
});

describe("decodePod: a request above its limit", () => {
  // The API server refuses such a pod (ValidateResourceRequirements), but the kubelet runs what it
  // is given, and upstream's eviction tests build such pods: a warning, and the values as written.
  function decodeWarned(raw: unknown): {
    pod: Pod;
    warnings: { path: string; code: string; message: string }[];
  } {
    const issues = new IssueList();
    const pod = decodePod(raw, "pods[1]", issues);
    assert.deepEqual(issues.errors, [], "no errors");
    assert.ok(pod, "the pod is decoded");
    return {
      pod,
      warnings: issues.warnings.map((i) => ({ path: i.path, code: i.code, message: i.message })),
    };
  }

  test("is a warning naming the field path, the value and the API server's refusal", () => {
    const { warnings } = decodeWarned({
      metadata: { name: "web" },
      spec: {
        containers: [
          {
            name: "app",
            resources: {
              requests: { "ephemeral-storage": "900Mi" },
              limits: { "ephemeral-storage": "800Mi" },
            },
          },
        ],
      },
    });
    assert.deepEqual(warnings, [
      {
        path: 'pods[1].spec.containers[0].resources.requests["ephemeral-storage"]',
        code: "request-above-limit",
        message:
          '"900Mi" must be less than or equal to ephemeral-storage limit of 800Mi: the API server would ' +
          "reject this pod; simulated as the kubelet runs it, with the request and the limit as written",
      },
    ]);
  });

  test("request and limit are kept as written (no clamping), other resources still defaulted", () => {
    const { pod, warnings } = decodeWarned({
      metadata: { name: "web" },
      spec: {
        containers: [
          {
            name: "app",
            resources: {
              requests: { "ephemeral-storage": "1Gi", memory: "2Gi" },
              limits: { "ephemeral-storage": "800Mi", memory: "1Gi", cpu: "500m" },
            },
          },
        ],
      },
    });
    assert.deepEqual(
      warnings.map((w) => w.path),
      [
        'pods[1].spec.containers[0].resources.requests["ephemeral-storage"]',
        "pods[1].spec.containers[0].resources.requests.memory",
      ],
    );
    const c = pod.containers[0]!;
    assert.deepEqual(fmt(c.resources.requests), { "ephemeral-storage": "1Gi", memory: "2Gi", cpu: "500m" });
    assert.deepEqual(fmt(c.resources.limits), { "ephemeral-storage": "800Mi", memory: "1Gi", cpu: "500m" });
  });

  test("init containers and sidecars get the same treatment", () => {
    const { pod, warnings } = decodeWarned({
      metadata: { name: "web" },
      spec: {
        containers: [{ name: "app" }],
        initContainers: [
          {
            name: "side",
            restartPolicy: "Always",
            resources: { requests: { memory: "300Mi" }, limits: { memory: "200Mi" } },
          },
        ],
      },
    });
    assert.deepEqual(
      warnings.map((w) => w.path),
      ["pods[1].spec.initContainers[0].resources.requests.memory"],
    );
    assert.deepEqual(fmt(pod.initContainers[0]!.resources.requests), { memory: "300Mi" });
  });

  test("QoS follows upstream: cpu or memory request above limit is Burstable; ephemeral-storage does not count", () => {
    const qosOf = (resources: object): string =>
      podQos(decodeWarned({ metadata: { name: "w" }, spec: { containers: [{ name: "a", resources }] } }).pod);
    // request != limit for memory: not Guaranteed, even with both cpu and memory limits set.
    assert.equal(
      qosOf({ requests: { cpu: "1", memory: "2Gi" }, limits: { cpu: "1", memory: "1Gi" } }),
      "Burstable",
    );
    assert.equal(qosOf({ requests: { cpu: "2" }, limits: { cpu: "1" } }), "Burstable");
    // Only ephemeral-storage set (request above limit): no cpu/memory at all, so BestEffort.
    assert.equal(
      qosOf({ requests: { "ephemeral-storage": "900Mi" }, limits: { "ephemeral-storage": "800Mi" } }),
      "BestEffort",
    );
    // cpu and memory equal, ephemeral-storage request above limit: still Guaranteed.
    assert.equal(
      qosOf({
        requests: { cpu: "1", memory: "1Gi", "ephemeral-storage": "2Gi" },
        limits: { cpu: "1", memory: "1Gi", "ephemeral-storage": "1Gi" },
      }),
      "Guaranteed",
    );
  });
});
