// The node file of `evictd run`: defaults, allocatable as the kubelet computes it, every problem collected.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseNodeSpec } from "./node-spec.js";

const base = {
  apiVersion: "evictd.io/v1alpha1",
  kind: "EvictdNode",
  capacity: { memory: "4Gi", pids: "4096" },
  stateDir: "/var/lib/evictd",
  manifestDir: "/etc/evictd/pods",
};

describe("parseNodeSpec", () => {
  test("defaults: hostname, 10 s housekeeping, 127.0.0.1:10255, notifications on, kubelet's default thresholds", () => {
    const r = parseNodeSpec({ raw: base, hostname: "box" });
    assert.ok(r.ok, JSON.stringify(!r.ok && r.issues));
    assert.equal(r.spec.name, "box");
    assert.equal(r.spec.housekeepingIntervalMs, 10_000);
    assert.deepEqual(r.spec.listen, { host: "127.0.0.1", port: 10255 });
    assert.equal(r.spec.notifications, true);
    assert.deepEqual(
      r.spec.eviction.thresholds.map((t) => t.signal),
      [
        "memory.available",
        "nodefs.available",
        "nodefs.inodesFree",
        "imagefs.available",
        "imagefs.inodesFree",
        "allocatableMemory.available",
      ],
    );
    // No reservations: the pods cgroup gets the whole node; allocatable is that minus 100Mi.
    assert.equal(r.spec.podsMemoryLimitBytes, 4n * 1024n ** 3n);
    assert.equal(r.spec.allocatableMemoryBytes, 4n * 1024n ** 3n - 100n * 1024n ** 2n);
    assert.equal(r.spec.podsPidsLimit, 4096n);
    assert.equal(r.spec.maxPods, 110);
  });

  test("maxPods comes from the config (inline); problems there are collected with the rest", () => {
    const ok = parseNodeSpec({ raw: { ...base, config: { maxPods: 3 } }, hostname: "box" });
    assert.ok(ok.ok, JSON.stringify(!ok.ok && ok.issues));
    assert.equal(ok.spec.maxPods, 3);
    const bad = parseNodeSpec({
      raw: { ...base, capacity: { memory: "lots" }, config: { maxPods: -1, cgroupDriver: "systemd" } },
      hostname: "box",
    });
    assert.ok(!bad.ok);
    assert.deepEqual(
      bad.issues.map((i) => [i.severity, i.path]),
      [
        ["error", "capacity.memory"],
        ["warning", "config.cgroupDriver"],
        ["error", "config.maxPods"],
      ],
    );
  });

  test("a housekeepingInterval longer than a timer holds is an error naming the limit and the value", () => {
    const r = parseNodeSpec({ raw: { ...base, housekeepingInterval: "1000000h" }, hostname: "box" });
    assert.ok(!r.ok);
    assert.deepEqual(
      r.issues.map((i) => [i.path, i.message]),
      [
        [
          "housekeepingInterval",
          'must be at most 596h31m23.647s (the longest a timer holds), got "1000000h"',
        ],
      ],
    );
    const longest = parseNodeSpec({
      raw: { ...base, housekeepingInterval: "596h31m23.647s" },
      hostname: "box",
    });
    assert.ok(longest.ok);
    assert.equal(longest.spec.housekeepingIntervalMs, 2 ** 31 - 1);
  });

  test("reservations give the pods limit; a percentage hard threshold is taken of capacity", () => {
    const r = parseNodeSpec({
      raw: {
        ...base,
        capacity: { memory: "16Gi" },
        systemReserved: { memory: "1Gi" },
        kubeReserved: { memory: "1Gi", pids: "100" },
        config: { evictionHard: { "memory.available": "10%" } },
        housekeepingInterval: "1s",
        listen: ":9000",
      },
      hostname: "box",
    });
    assert.ok(r.ok);
    assert.equal(r.spec.podsMemoryLimitBytes, 14n * 1024n ** 3n);
    // 10% of 16 GiB in float32: 1717986944, not 1717986918.
    assert.equal(r.spec.allocatableMemoryBytes, 14n * 1024n ** 3n - 1717986944n);
    assert.equal(r.spec.housekeepingIntervalMs, 1000);
    assert.deepEqual(r.spec.listen, { host: "127.0.0.1", port: 9000 });
    assert.equal(r.spec.podsPidsLimit, undefined);
  });

  test("every problem is collected, each naming the field and the value", () => {
    const r = parseNodeSpec({
      raw: {
        kind: "Node",
        capacity: { memory: "1K" },
        stateDir: 7,
        housekeepingInterval: "10",
        listen: "localhost",
        notifications: "yes",
        config: { evictionHard: { "foo.available": "1Gi" } },
        extra: 1,
      },
      hostname: "box",
    });
    assert.ok(!r.ok);
    const errors = r.issues.filter((i) => i.severity === "error").map((i) => `${i.path}: ${i.message}`);
    const expect = [
      /^kind: expected EvictdNode, got "Node"/,
      /^capacity\.memory: invalid quantity "1K"/,
      /^stateDir: expected .*got 7/,
      /^manifestDir: missing/,
      /^housekeepingInterval: time: missing unit in duration "10"/,
      /^listen: expected "host:port".*got "localhost"/,
      /^notifications: expected true or false, got "yes"/,
      /^config\.evictionHard\["foo\.available"\]: unsupported eviction signal foo\.available/,
    ];
    for (const re of expect)
      assert.ok(
        errors.some((e) => re.test(e)),
        `${re} not in\n${errors.join("\n")}`,
      );
    assert.ok(r.issues.some((i) => i.severity === "warning" && i.path === "extra"));
  });

  test("reservations that leave nothing for pods are an error", () => {
    const r = parseNodeSpec({
      raw: { ...base, capacity: { memory: "1Gi" }, systemReserved: { memory: "1Gi" } },
      hostname: "h",
    });
    assert.ok(!r.ok);
    assert.match(r.issues.map((i) => i.message).join("\n"), /leave no memory for pods/);
  });

  test("a missing memory capacity is required", () => {
    const r = parseNodeSpec({ raw: { ...base, capacity: { pids: 100 } }, hostname: "h" });
    assert.ok(!r.ok);
    assert.ok(r.issues.some((i) => i.path === "capacity.memory" && i.code === "required"));
  });

  test("the files on nodefs are bounded by default: decisions.jsonl 10Mi × 5, container logs 10Mi × 5 every 10s", () => {
    const r = parseNodeSpec({ raw: base, hostname: "h" });
    assert.ok(r.ok);
    assert.deepEqual(r.spec.decisionLog, { maxBytes: 10 * 1024 * 1024, maxFiles: 5 });
    assert.deepEqual(r.spec.containerLogs, {
      maxBytes: 10 * 1024 * 1024,
      maxFiles: 5,
      monitorIntervalMs: 10_000,
    });
  });

  test("decisionLog and the config's containerLog fields are read; their problems are collected with the others", () => {
    const ok = parseNodeSpec({
      raw: {
        ...base,
        decisionLog: { maxSize: "1Mi", maxFiles: 3 },
        config: { containerLogMaxSize: "1Mi", containerLogMaxFiles: 3, containerLogMonitorInterval: "3s" },
      },
      hostname: "h",
    });
    assert.ok(ok.ok, JSON.stringify(!ok.ok && ok.issues));
    assert.deepEqual(ok.spec.decisionLog, { maxBytes: 1024 * 1024, maxFiles: 3 });
    assert.deepEqual(ok.spec.containerLogs, { maxBytes: 1024 * 1024, maxFiles: 3, monitorIntervalMs: 3000 });

    const bad = parseNodeSpec({
      raw: {
        ...base,
        decisionLog: { maxSize: "1k", maxFiles: 1, keep: 2 },
        config: { containerLogMaxFiles: 0, evictionHard: { "memory.available": "x" } },
      },
      hostname: "h",
    });
    assert.ok(!bad.ok);
    const lines = bad.issues.map((i) => `${i.severity} ${i.path}: ${i.message}`);
    for (const re of [
      /^error decisionLog\.maxSize: must be at least 16Ki, got "1k"/,
      /^error decisionLog\.maxFiles: must be from 2 .* got 1/,
      /^warning decisionLog\.keep: unknown field/,
      /^error config\.containerLogMaxFiles: must be greater than 1/,
      /^error config\.evictionHard\["memory\.available"\]/,
    ])
      assert.ok(
        lines.some((l) => re.test(l)),
        `${re} not in\n${lines.join("\n")}`,
      );
    assert.ok(!bad.issues.some((i) => i.path === "decisionLog" && i.code === "unknown-field"));
  });
});
