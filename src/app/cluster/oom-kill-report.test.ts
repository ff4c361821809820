// oomKillReports: kernel OOM kills, named from the API's pods, as the Event's message says them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { oomKillReports, type OomKillSeen } from "./oom-kill-report.js";

const pods = [{ uid: "u1", name: "web", namespace: "shop", containerNames: new Map([["c1", "app"]]) }];
const Mi = 1024n * 1024n;
const kill = (over: Partial<OomKillSeen>): OomKillSeen => ({
  podUid: "u1",
  containerId: "c1",
  kills: 1,
  limitHit: "container",
  limitBytes: 48n * Mi,
  peakBytes: 48n * Mi,
  ...over,
});

test("each limit said as it was hit; the container named from the pod's status", () => {
  const messages = oomKillReports(
    [
      kill({}),
      kill({ limitHit: "pod", kills: 2 }),
      kill({ limitHit: "node", limitBytes: undefined, peakBytes: undefined }),
      kill({ containerId: "", limitHit: "unknown" }),
    ],
    pods,
  ).map((r) => [r.pod.name, r.container, r.kills, r.message]);
  assert.deepEqual(messages, [
    [
      "web",
      "app",
      1,
      "Container app was OOM-killed by the kernel: it reached its own memory limit 48Mi; its peak usage was 48Mi.",
    ],
    [
      "web",
      "app",
      2,
      "Container app was OOM-killed by the kernel (2 processes): its pod reached the pod's memory limit (its memory limit is 48Mi); its peak usage was 48Mi.",
    ],
    [
      "web",
      "app",
      1,
      "Container app was OOM-killed by the kernel: the node ran out of memory before eviction could reclaim it (it has no memory limit).",
    ],
    [
      "web",
      "",
      1,
      "A container was OOM-killed by the kernel: its cgroup was gone before evictd could read which limit was hit; its peak usage was 48Mi.",
    ],
  ]);
});

test("a pod the API no longer lists gets no report (nothing to attach an Event to)", () => {
  assert.deepEqual(oomKillReports([kill({ podUid: "gone" })], pods), []);
});

test("a static pod's kill (its cgroup named after the config hash) is reported on its mirror pod", () => {
  const mirror = {
    uid: "7a0e2b4c-1d3f-4a5b-8c6d-9e0f1a2b3c4d",
    kubeletUid: "3c1c5f1d2f0e4b7a9c8d7e6f5a4b3c2d",
    name: "kube-proxy-node-1",
    namespace: "kube-system",
    containerNames: new Map([["c9", "kube-proxy"]]),
  };
  const reports = oomKillReports([kill({ podUid: mirror.kubeletUid, containerId: "c9" })], [...pods, mirror]);
  assert.deepEqual(
    reports.map((r) => [r.pod, r.container]),
    [[{ namespace: "kube-system", name: "kube-proxy-node-1", uid: mirror.uid }, "kube-proxy"]],
  );
  assert.deepEqual(oomKillReports([kill({ podUid: mirror.uid, containerId: "c9" })], [mirror]), []);
});
