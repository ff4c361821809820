// OomKillWatch: what each look at the kubelet's cgroups does with the kernel OOM kills it finds.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { PodEventContent, PodRef, WriteOutcome } from "./cluster-node-port.js";
import { OomKillWatch } from "./oom-kill-watch.js";
import type { OomKillSeen } from "./oom-kill-report.js";

const pods = [{ uid: "u1", name: "web", namespace: "shop", containerNames: new Map([["c1", "app"]]) }];
const seen = (podUid: string, kills: number): OomKillSeen => ({
  podUid,
  containerId: "c1",
  kills,
  limitHit: "container",
  limitBytes: 64n * 1024n * 1024n,
  peakBytes: undefined,
});

function watchWith(
  scans: (() => OomKillSeen[])[],
  o: { postEvents: boolean; answer?: () => Promise<WriteOutcome> },
) {
  const counted: [string, number][] = [];
  const warnings: string[] = [];
  const events: { pod: PodRef; event: PodEventContent }[] = [];
  const watch = new OomKillWatch({
    counter: {
      scan: () => {
        const next = scans.shift();
        assert.ok(next !== undefined, "one scan more than the test set up");
        return next();
      },
    },
    pods: () => pods,
    api: {
      createPodEvent: (pod, event) => {
        events.push({ pod, event });
        return (o.answer ?? (() => Promise.resolve<WriteOutcome>({ kind: "done" })))();
      },
    },
    log: { info: () => undefined, warn: (_f, m) => warnings.push(m), error: () => undefined },
    postEvents: o.postEvents,
    count: (c, kills) => counted.push([`${c.namespace}/${c.pod}/${c.container}`, kills]),
  });
  return { watch, counted, warnings, events };
}

test("the first look learns the counts; later kills are counted, logged and put on the pod", async () => {
  const w = watchWith([() => [seen("u1", 3)], () => [seen("u1", 2), seen("gone", 1)]], { postEvents: true });
  w.watch.begin();
  assert.deepEqual([w.counted, w.warnings, w.events], [[], [], []]);
  w.watch.look();
  await Promise.resolve();
  // A pod the API no longer lists gets nothing: no Event can name it.
  assert.deepEqual(w.counted, [["shop/web/app", 2]]);
  assert.equal(w.warnings.length, 1);
  assert.match(w.warnings[0] ?? "", /^Container app was OOM-killed by the kernel \(2 processes\)/);
  assert.deepEqual(
    w.events.map((e) => [e.pod.uid, e.event.type, e.event.reason, e.event.message]),
    [["u1", "Warning", "OOMKilled", w.warnings[0]]],
  );
});

test("shadow mode counts and logs, and writes nothing to the API", () => {
  const w = watchWith([() => [], () => [seen("u1", 1)]], { postEvents: false });
  w.watch.begin();
  w.watch.look();
  assert.deepEqual(w.counted, [["shop/web/app", 1]]);
  assert.equal(w.warnings.length, 1);
  assert.deepEqual(w.events, []);
});

test("a failed read or a refused Event is logged, and the next look goes on", async () => {
  const w = watchWith(
    [
      () => [],
      () => {
        throw new Error("EACCES");
      },
      () => [seen("u1", 1)],
    ],
    {
      postEvents: true,
      answer: () => Promise.resolve({ kind: "refused", status: 403, message: "forbidden" }),
    },
  );
  w.watch.begin();
  w.watch.look();
  assert.deepEqual(w.warnings, ["cannot read the kubelet cgroups' OOM kill counts"]);
  w.watch.look();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(w.counted, [["shop/web/app", 1]]);
  assert.equal(w.warnings[2], "the OOMKilled event was refused: forbidden");
});
