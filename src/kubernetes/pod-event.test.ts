import { test } from "node:test";
import assert from "node:assert/strict";
import { EventNamer, eventsPath, podEventBody } from "./pod-event.js";

const NOW = Date.UTC(2026, 5, 26, 10, 20, 0, 123);

test("names are <pod>.<unix nanoseconds in hex>, like client-go's recorder", () => {
  const name = new EventNamer().next("web-0", NOW);
  assert.equal(name, `web-0.${(BigInt(NOW) * 1_000_000n).toString(16)}`);
  assert.equal(name, "web-0.18bc9a4b2867f4c0");
});

test("names from one namer never repeat, even within a millisecond or with a clock going back", () => {
  const namer = new EventNamer();
  const names = [
    namer.next("p", NOW),
    namer.next("p", NOW),
    namer.next("p", NOW - 5),
    namer.next("p", NOW + 1),
  ];
  assert.equal(new Set(names).size, 4);
  const nanos = names.map((n) => BigInt(`0x${n.slice(2)}`));
  assert.ok(nanos.every((v, i) => i === 0 || v > (nanos[i - 1] ?? 0n)));
});

test("the Event body: involvedObject, kubelet source on the node, whole-second timestamps, count 1", () => {
  const body = podEventBody(
    { namespace: "web", name: "web-0", uid: "u-1" },
    { type: "Warning", reason: "Evicted", message: "m" },
    "node-a",
    "web-0.1",
    NOW,
  ) as Record<string, unknown>;
  assert.deepEqual(body.involvedObject, {
    kind: "Pod",
    namespace: "web",
    name: "web-0",
    uid: "u-1",
    apiVersion: "v1",
  });
  assert.deepEqual(body.source, { component: "kubelet", host: "node-a" });
  assert.equal(body.reportingComponent, "kubelet");
  assert.equal(body.reportingInstance, "node-a");
  assert.equal(body.firstTimestamp, "2026-06-26T10:20:00Z");
  assert.equal(body.lastTimestamp, "2026-06-26T10:20:00Z");
  assert.equal(body.count, 1);
  assert.deepEqual(body.metadata, { name: "web-0.1", namespace: "web" });
  assert.equal(eventsPath({ namespace: "kube system" }), "/api/v1/namespaces/kube%20system/events");
});
