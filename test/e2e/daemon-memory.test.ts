/**
 * `evictd run` end to end under memory pressure, with real processes in real cgroups: the kubelet's
 * memory ranking picks the victim (usage over request first, then priority, then usage − request),
 * one pod per pressure episode, hard thresholds give 1 s, soft thresholds wait out their grace
 * period and give min(evictionMaxPodGracePeriod, terminationGracePeriodSeconds), critical pods are
 * refused. Expected victims come from kubelet-semantics.md §3–§4 and §7.3, not from the code.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import {
  condition,
  E2E_SKIP,
  evicted,
  holdMemory,
  IDLE,
  leakMemory,
  lineTime,
  metricValue,
  podManifest,
  podStatus,
  sh,
  sleep,
  stopAndCheckClean,
  stopAndInspect,
  TestNode,
  totalEvictions,
  type DecisionRecord,
  type PodStatus,
  type StatusDoc,
  type StopReport,
  scaled,
} from "../harness/node-harness.js";

const nodes: TestNode[] = [];
afterEach(async () => {
  while (nodes.length > 0) await nodes.pop()?.cleanup();
});

async function newNode(label: string): Promise<TestNode> {
  const node = await TestNode.create(label);
  nodes.push(node);
  return node;
}

const MEMORY_PREFIX = "The node was low on resource: memory. ";

describe("evictd run: memory pressure", { skip: E2E_SKIP }, () => {
  test(
    "a leaking Burstable pod is evicted first, alone, in time to avoid the kernel OOM killer",
    { timeout: scaled(40_000) },
    async () => {
      const node = await newNode("mem");
      await node.writeNodeFile({
        capacity: { memory: "512Mi", pids: 1024 },
        config: {
          evictionHard: { "memory.available": "150Mi", "nodefs.available": "1%", "nodefs.inodesFree": "1%" },
        },
      });
      // BestEffort: no requests; its working set (a sleep) is over its zero request, but tiny.
      await node.addPod(podManifest({ name: "idler", containers: [{ name: "idle", command: IDLE }] }));
      // Guaranteed: cpu and memory requests equal limits; holds 64Mi of its 128Mi.
      await node.addPod(
        podManifest({
          name: "steady",
          containers: [
            {
              name: "hold",
              command: holdMemory(64),
              requests: { cpu: "100m", memory: "128Mi" },
              limits: { cpu: "100m", memory: "128Mi" },
            },
          ],
        }),
      );
      // Critical by priority (system-node-critical); uses 48Mi over a 16Mi request.
      await node.addPod(
        podManifest({
          name: "agent",
          namespace: "kube-system",
          priority: 2000001000,
          priorityClassName: "system-node-critical",
          containers: [{ name: "agent", command: holdMemory(48), requests: { memory: "16Mi" } }],
        }),
      );
      // Burstable: requests 32Mi and grows 8Mi every 100 ms, with no limit of its own.
      await node.addPod(
        podManifest({
          name: "leaker",
          containers: [{ name: "leak", command: leakMemory(8, 100), requests: { memory: "32Mi" } }],
        }),
      );

      const daemon = await node.start();
      const victim = await daemon.waitForStatus("default/leaker evicted", evicted("default/leaker"), 25_000);

      // Kubelet ranking (§4.4): exceedMemoryRequests → priority → usage − request. The leaker is far
      // over its request; the idler is over its zero request by a few hundred KiB only.
      assert.equal(victim.qosClass, "Burstable");
      assert.ok(
        victim.message?.startsWith(`${MEMORY_PREFIX}Threshold quantity: 150Mi, available: `),
        `message: ${victim.message}`,
      );
      assert.match(
        victim.message ?? "",
        /Container leak was using \d+(Ki|Mi), request is 32Mi, has larger consumption of memory\. $/,
      );
      const target = victim.conditions.find((c) => c.type === "DisruptionTarget");
      assert.deepEqual(target && { status: target.status, reason: target.reason, message: target.message }, {
        status: "True",
        reason: "TerminationByKubelet",
        message: victim.message,
      });

      // Only one pod goes: once the leaker's memory is freed the node is back above the threshold.
      await sleep(3000);
      const s: StatusDoc = await daemon.status();
      for (const key of ["default/idler", "default/steady", "kube-system/agent"]) {
        const p = podStatus(s, key);
        assert.equal(p?.phase, "Running", `${key} must keep running: ${JSON.stringify(p)}`);
        assert.deepEqual(Object.values(p.restarts), [0], `${key} must not have restarted`);
      }
      // Beside memory.available, evictd's additions: the node cgroup's memory three ways. Its
      // usage counts the kernel memory charged to it, so the view with kernel memory is the same.
      const views = s.signals.find((x) => x.signal === "memory.available")?.evictdAdditions;
      assert.ok(views !== undefined, "memory.available carries evictd's additions");
      assert.match(views.note, /^evictd's additions .*never used for decisions$/);
      assert.equal(views.capacity, "512Mi");
      assert.ok(views.kernelAvailable !== undefined, "MemAvailable");
      if (views.withKernelMemory !== undefined) {
        assert.equal(views.withKernelMemory.alreadyInKubeletFigure, true);
        assert.equal(views.withKernelMemory.available, views.kubelet.available);
      }
      assert.equal(podStatus(s, "default/steady")?.qosClass, "Guaranteed");
      assert.equal(podStatus(s, "default/idler")?.qosClass, "BestEffort");
      assert.deepEqual(s.evictionCounts, { "memory.available": 1 });
      assert.deepEqual(
        s.recentEvictions.map((e) => [e.pod, e.signal, e.gracePeriodSeconds]),
        [["default/leaker", "memory.available", 1]],
      );

      const metrics = await daemon.metrics();
      assert.equal(
        metricValue(metrics, "kubelet_evictions", { eviction_signal: "memory.available" }),
        1,
        metrics,
      );
      assert.equal(totalEvictions(metrics), 1);

      const decisions = await node.decisions();
      const steps = decisions.filter((d) => (d.evictions?.length ?? 0) > 0);
      assert.equal(steps.length, 1, `one eviction step in the decision log: ${JSON.stringify(steps)}`);
      const e = steps[0]?.evictions?.[0];
      assert.deepEqual(
        e && [e.pod, e.kind, e.signal, e.gracePeriodSeconds, e.effectiveGracePeriodSeconds, e.message],
        ["default/leaker", "pressure", "memory.available", 1, 1, victim.message],
      );
      assert.deepEqual(steps[0]?.conditions, ["MemoryPressure"]);
      // The whole order: over-request pods first (leaker, idler, agent), by priority (the critical
      // agent last among them), then by usage − request; the Guaranteed pod within its request last.
      assert.deepEqual(steps[0]?.ranking, [
        "default/leaker",
        "default/idler",
        "kube-system/agent",
        "default/steady",
      ]);

      // Every kernel notification the daemon armed kept working (a broken notification thread still
      // evicts, through the working-set poller, but later).
      assert.deepEqual(
        daemon.lines.filter((l) => l.msg === "wake source failed").map((l) => l["err"]),
        [],
        `no wake source failed${daemon.tail()}`,
      );
      // The leaker got SIGTERM from the daemon (exit 143), not SIGKILL from the kernel.
      assert.equal(node.oomKills(), 0, `no kernel OOM kill in the node's cgroups${daemon.tail()}`);
      assert.ok(
        !daemon.lines.some((l) => l["reason"] === "OOMKilled"),
        `no container OOMKilled${daemon.tail()}`,
      );
      const exits = daemon.lines.filter((l) => l.msg === "container exited");
      assert.deepEqual(
        exits.map((l) => [l["pod"], l["exitCode"]]),
        [["default/leaker", 143]],
        `only the leaker's container exited, on SIGTERM${daemon.tail()}`,
      );

      await stopAndCheckClean(node, daemon);
    },
  );

  test(
    "a soft threshold waits out its grace period, then gives min(evictionMaxPodGracePeriod, terminationGracePeriodSeconds)",
    { timeout: scaled(40_000) },
    async () => {
      const node = await newNode("soft");
      await node.writeNodeFile({
        capacity: { memory: "512Mi" },
        config: {
          evictionHard: { "memory.available": "50Mi", "nodefs.available": "1%", "nodefs.inodesFree": "1%" },
          evictionSoft: { "memory.available": "200Mi" },
          evictionSoftGracePeriod: { "memory.available": "3s" },
          evictionMaxPodGracePeriod: 2,
        },
      });
      await node.addPod(podManifest({ name: "idler", containers: [{ name: "idle", command: IDLE }] }));
      // Holds 360Mi of the 512Mi node (available ≈ 145Mi: under the soft 200Mi, above the hard 50Mi)
      // and ignores SIGTERM, so how long it lives after SIGTERM is the grace period it was given.
      await node.addPod(
        podManifest({
          name: "hog",
          terminationGracePeriodSeconds: 30,
          containers: [
            { name: "hog", command: holdMemory(360, { ignoreTerm: true }), requests: { memory: "16Mi" } },
          ],
        }),
      );

      const daemon = await node.start();
      // While the grace period runs, /status says so and nothing is evicted.
      const waiting = await daemon.waitForStatus(
        "the soft threshold met but inside its grace period",
        (s) => {
          const t = s.signals
            .find((x) => x.signal === "memory.available")
            ?.thresholds.find((x) => x.type === "soft");
          return t !== undefined && t.state.startsWith("met, grace") ? { state: t.state, s } : undefined;
        },
        20_000,
      );
      assert.equal(
        condition(waiting.s, "MemoryPressure"),
        "True",
        "a soft threshold inside its grace period already reports MemoryPressure",
      );
      assert.equal(podStatus(waiting.s, "default/hog")?.phase, "Running");

      const victim = await daemon.waitForStatus("default/hog evicted", evicted("default/hog"), 20_000);
      assert.ok(
        victim.message?.startsWith(`${MEMORY_PREFIX}Threshold quantity: 200Mi, available: `),
        `message: ${victim.message}`,
      );

      // From the decision log: the first step that reported MemoryPressure started the grace clock.
      const decisions = await node.decisions();
      const first = decisions.find((d) => d.conditions.includes("MemoryPressure"));
      const step = decisions.find((d) => (d.evictions?.length ?? 0) > 0);
      assert.ok(first?.time !== undefined && step?.time !== undefined, JSON.stringify(decisions.slice(0, 5)));
      const firstAt = Date.parse(first.time);
      const waited = Date.parse(step.time) - firstAt;
      assert.ok(
        waited >= 3000,
        `evicted ${waited} ms after MemoryPressure first showed: the grace period is 3s`,
      );
      assert.ok(
        waited < 6000,
        `evicted ${waited} ms after MemoryPressure first showed: expected soon after 3s with a 1s loop`,
      );
      assert.ok(
        decisions
          .filter((d) => d.time !== undefined && Date.parse(d.time) < firstAt + 3000)
          .every((d) => (d.evictions?.length ?? 0) === 0),
        "no eviction inside the grace period",
      );
      const e = step.evictions?.[0];
      assert.deepEqual(
        e && [e.pod, e.signal, e.gracePeriodSeconds, e.effectiveGracePeriodSeconds],
        ["default/hog", "memory.available", 2, 2],
        "soft eviction: override min(evictionMaxPodGracePeriod 2, terminationGracePeriodSeconds 30)",
      );

      // The hog ignores SIGTERM: it dies by SIGKILL once its 2 s are up.
      const term = await daemon.waitForLine(
        "SIGTERM to the hog",
        (l) => l.msg.startsWith("pod killing") && l["pod"] === "default/hog",
        5000,
      );
      const exit = await daemon.waitForLine(
        "the hog's exit",
        (l) => l.msg === "container exited" && l["pod"] === "default/hog",
        10_000,
      );
      const lived = lineTime(exit) - lineTime(term);
      assert.equal(exit["exitCode"], 137, "killed by SIGKILL after ignoring SIGTERM");
      assert.ok(
        lived >= 1900 && lived < 4000,
        `the hog lived ${lived} ms after SIGTERM: its grace period is 2 s`,
      );

      await sleep(2000);
      const s = await daemon.status();
      assert.equal(podStatus(s, "default/idler")?.phase, "Running");
      assert.deepEqual(s.evictionCounts, { "memory.available": 1 });
      assert.equal(node.oomKills(), 0, "no kernel OOM kill");
      await stopAndCheckClean(node, daemon);
    },
  );

  test(
    "a critical pod is never evicted, even as the only big consumer: the others go instead",
    { timeout: scaled(40_000) },
    async () => {
      const node = await newNode("crit");
      await node.writeNodeFile({
        capacity: { memory: "512Mi" },
        config: {
          evictionHard: { "memory.available": "150Mi", "nodefs.available": "1%", "nodefs.inodesFree": "1%" },
        },
      });
      // Static pod (config.source: file): critical. Grows to 380Mi in about 2 s, then holds it.
      await node.addPod(
        podManifest({
          name: "etcd",
          namespace: "kube-system",
          annotations: { "kubernetes.io/config.source": "file" },
          containers: [{ name: "etcd", command: leakMemory(20, 100, 380), requests: { memory: "32Mi" } }],
        }),
      );
      // Burstable, 24Mi over a 16Mi request: over its request, by less than the static pod.
      await node.addPod(
        podManifest({
          name: "web",
          containers: [{ name: "web", command: holdMemory(24), requests: { memory: "16Mi" } }],
        }),
      );
      await node.addPod(podManifest({ name: "batch", containers: [{ name: "batch", command: IDLE }] }));

      const daemon = await node.start();
      // Ranking: all three exceed their requests and share priority 0; usage − request puts etcd
      // first, then web, then batch. etcd is refused, so web goes; the pressure stays (etcd holds
      // it), so batch goes next; then nothing is left to evict.
      await daemon.waitForStatus(
        "web and batch evicted",
        (s) => (evicted("default/web")(s) && evicted("default/batch")(s) ? s : undefined),
        25_000,
      );
      await sleep(2000);
      const s = await daemon.status();
      const etcd = podStatus(s, "kube-system/etcd");
      assert.equal(etcd?.phase, "Running", `the critical pod keeps running: ${JSON.stringify(etcd)}`);
      assert.equal(condition(s, "MemoryPressure"), "True");
      assert.deepEqual(
        s.recentEvictions.map((e) => e.pod).reverse(),
        ["default/web", "default/batch"],
        "eviction order",
      );
      assert.deepEqual(s.evictionCounts, { "memory.available": 2 });
      assert.deepEqual(
        s.ranking?.order.map((o) => [o.pod, o.critical]),
        [["kube-system/etcd", true]],
        "only the critical pod is left in the ranking",
      );
      assert.equal(s.ranking?.next, null, "nobody can be evicted next");

      const decisions = await node.decisions();
      const evictionSteps = decisions.filter((d) => (d.evictions?.length ?? 0) > 0);
      assert.deepEqual(
        evictionSteps.map((d) => d.evictions?.map((e) => e.pod)),
        [["default/web"], ["default/batch"]],
      );
      for (const d of evictionSteps) {
        assert.deepEqual(d.ranking?.[0], "kube-system/etcd", "the critical pod ranks first");
        assert.deepEqual(
          d.refused?.map((r) => [r.pod, r.reason]),
          [["kube-system/etcd", "critical"]],
          "and is refused",
        );
      }
      const last = decisions.at(-1);
      assert.deepEqual(
        last && [last.outcome, last.evictions, last.refused?.map((r) => r.pod)],
        ["unable to evict any pods from the node", [], ["kube-system/etcd"]],
        "later steps under pressure refuse the critical pod and evict nobody",
      );
      assert.equal(node.oomKills(), 0, "no kernel OOM kill");
      await stopAndCheckClean(node, daemon);
    },
  );
});

describe("evictd run: a memory-backed emptyDir under memory pressure", { skip: E2E_SKIP }, () => {
  let node: TestNode | undefined;
  let victim: PodStatus | undefined;
  let later: StatusDoc | undefined;
  let steps: DecisionRecord[] = [];
  let stop: StopReport | undefined;
  let tail = "";

  before(
    async () => {
      node = await TestNode.create("tmpfs");
      await node.writeNodeFile({
        capacity: { memory: "512Mi" },
        config: {
          evictionHard: { "memory.available": "150Mi", "nodefs.available": "1%", "nodefs.inodesFree": "1%" },
        },
      });
      // Writes 8Mi every 100 ms into a tmpfs emptyDir, up to 400Mi: tmpfs pages are charged to the
      // writer's memory cgroup, so the pod's working set grows far over its 16Mi request, and the
      // node's past the threshold (above 362Mi) with room to spare whatever the processes around it
      // are charged (cgroup v2 charges them about 1 MiB less than v1: at 360Mi the node stopped
      // 588Ki short of the threshold there).
      await node.addPod(
        podManifest({
          name: "ramdisk",
          volumes: [{ name: "cache", emptyDir: { medium: "Memory", sizeLimit: "480Mi" } }],
          containers: [
            {
              name: "fill",
              command: sh(
                'i=0; while [ $i -lt 50 ]; do dd if=/dev/zero of="$EVICTD_VOLUME_CACHE/f$i" bs=1M count=8 2>/dev/null; i=$((i+1)); sleep 0.1; done; exec sleep 600',
              ),
              requests: { memory: "16Mi" },
            },
          ],
        }),
      );
      await node.addPod(
        podManifest({
          name: "bystander",
          containers: [{ name: "idle", command: IDLE, requests: { memory: "8Mi" } }],
        }),
      );
      const daemon = await node.start();
      try {
        victim = await daemon.waitForStatus("default/ramdisk evicted", evicted("default/ramdisk"), 20_000);
        await sleep(3000);
        later = await daemon.status();
        steps = (await node.decisions()).filter((d) => (d.evictions?.length ?? 0) > 0);
      } finally {
        tail = daemon.tail();
        stop = await stopAndInspect(node, daemon);
      }
    },
    { timeout: scaled(45_000) },
  );

  after(async () => {
    await node?.cleanup();
  });

  test("the pod filling its tmpfs is evicted first for memory.available", () => {
    assert.ok(victim !== undefined);
    assert.ok(
      victim.message?.startsWith(`${MEMORY_PREFIX}Threshold quantity: 150Mi, available: `),
      `message: ${victim.message}`,
    );
    assert.match(
      victim.message ?? "",
      /Container fill was using \d+(Ki|Mi), request is 16Mi, has larger consumption of memory\. $/,
    );
    assert.deepEqual(
      steps[0]?.evictions?.map((e) => [e.pod, e.signal]),
      [["default/ramdisk", "memory.available"]],
    );
  });

  test("nobody else is evicted: the evicted pod's tmpfs is torn down and its memory freed", () => {
    // Upstream the eviction manager waits for the pod to be finished, which includes unmounting
    // its volumes; a memory-backed emptyDir's pages are freed with it.
    assert.ok(later !== undefined);
    const summary = steps.map((d) => ({
      at: d.at,
      evicted: d.evictions?.map((e) => e.pod),
      available: d.observations?.["memory.available"]?.available,
    }));
    assert.equal(
      podStatus(later, "default/bystander")?.phase,
      "Running",
      `the bystander keeps running; evictions: ${JSON.stringify(summary)}`,
    );
    assert.deepEqual(later.evictionCounts, { "memory.available": 1 });
    assert.equal(node?.oomKills(), 0, "no kernel OOM kill");
  });

  test("--cleanup-on-exit stops cleanly and leaves no cgroup and no tmpfs mounted", () => {
    assert.ok(stop !== undefined);
    assert.deepEqual(stop.exit, { code: 0, signal: null }, tail);
    assert.deepEqual(stop.cgroupsLeft, []);
    assert.deepEqual(stop.mountsLeft, [], "the pod's memory-backed emptyDir must be unmounted");
  });
});
