// The cluster PodsPort and its informer, against an in-memory ClusterNodePort: what each API answer
// means for an eviction, one eviction per pod, and list/watch/relist.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IssueList } from "../../core/issues.js";
import { decodePod } from "../../core/pod/decode-pod.js";
import { EvictionBlockedError, type ClockPort, type FailedPodStatus, type LoggerPort } from "../ports.js";
import {
  ClusterPods,
  EVICTION_REQUESTED_EVENT_REASON,
  EvictionRefusedError,
  type ClusterPodsOptions,
  type EnforceMode,
} from "./cluster-pods.js";
import { BLOCKED_EVENT_INTERVAL_MS, EVICTION_BLOCKED_EVENT_REASON } from "./disruption-budget-preflight.js";
import { NodePodSet } from "./node-pod-set.js";
import {
  WatchExpiredError,
  type ClusterNodePort,
  type EvictionAttemptOutcome,
  type EvictionPreflightOutcome,
  type EvictionRequestOutcome,
  type PodEvent,
  type PodEventContent,
  type PodRef,
  type WriteOutcome,
} from "./cluster-node-port.js";

const rawPod = (name: string, uid: string, phase = "Running"): Record<string, unknown> => ({
  metadata: { name, namespace: "default", uid, resourceVersion: "1" },
  spec: { containers: [{ name: "c" }] },
  status: { phase },
});

class FakeApi implements ClusterNodePort {
  readonly nodeName = "n1";
  readonly describe = "fake";
  pods: unknown[] = [];
  calls: string[] = [];
  answers: Partial<Record<"patch" | "event" | "delete" | "evict" | "unrequest", WriteOutcome | Error>> = {};
  preflights: EvictionPreflightOutcome[] = [];
  /** What evictPodOrBlocked answers, in turn (then done). */
  attempts: EvictionAttemptOutcome[] = [];
  requestAnswer: EvictionRequestOutcome = { kind: "done" };
  events: PodEventContent[] = [];
  lists = 0;
  watches: ((onEvent: (e: PodEvent) => void, signal: AbortSignal) => Promise<void>)[] = [];
  summary(): Promise<unknown> {
    return Promise.resolve({});
  }
  kubeletConfig(): Promise<unknown> {
    return Promise.resolve({});
  }
  node(): Promise<unknown> {
    return Promise.resolve({});
  }
  listPods(): Promise<{ items: unknown[]; resourceVersion: string }> {
    this.lists++;
    return Promise.resolve({ items: [...this.pods], resourceVersion: String(this.lists * 10) });
  }
  watchPods(resourceVersion: string, onEvent: (e: PodEvent) => void, signal: AbortSignal): Promise<void> {
    this.calls.push(`watch ${resourceVersion}`);
    const next = this.watches.shift();
    if (next === undefined)
      return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    return next(onEvent, signal);
  }
  private answer(
    kind: "patch" | "event" | "delete" | "evict" | "unrequest",
    pod: PodRef,
  ): Promise<WriteOutcome> {
    this.calls.push(`${kind} ${pod.name}`);
    const a = this.answers[kind] ?? { kind: "done" };
    return a instanceof Error ? Promise.reject(a) : Promise.resolve(a);
  }
  patchPodStatus(pod: PodRef): Promise<WriteOutcome> {
    return this.answer("patch", pod);
  }
  createPodEvent(pod: PodRef, event: PodEventContent): Promise<WriteOutcome> {
    this.events.push(event);
    return this.answer("event", pod);
  }
  deletePod(pod: PodRef): Promise<WriteOutcome> {
    return this.answer("delete", pod);
  }
  evictPod(pod: PodRef): Promise<WriteOutcome> {
    return this.answer("evict", pod);
  }
  evictPodOrBlocked(pod: PodRef): Promise<EvictionAttemptOutcome> {
    this.calls.push(`evict-once ${pod.name}`);
    return Promise.resolve(this.attempts.shift() ?? { kind: "done" });
  }
  preflightEviction(pod: PodRef): Promise<EvictionPreflightOutcome> {
    this.calls.push(`preflight ${pod.name}`);
    return Promise.resolve(this.preflights.shift() ?? { kind: "allowed" });
  }
  createEvictionRequest(pod: PodRef): Promise<EvictionRequestOutcome> {
    this.calls.push(`request ${pod.name}`);
    return Promise.resolve(this.requestAnswer);
  }
  deleteEvictionRequest(pod: PodRef): Promise<WriteOutcome> {
    return this.answer("unrequest", pod);
  }
}

const clock: ClockPort = { now: () => 1000, sleep: () => Promise.resolve() };
function logger(lines: string[]): LoggerPort {
  return {
    info: (_f, m) => lines.push(`info ${m}`),
    warn: (_f, m) => lines.push(`warn ${m}`),
    error: (_f, m) => lines.push(`error ${m}`),
  };
}
const STATUS: FailedPodStatus = {
  phase: "Failed",
  reason: "Evicted",
  message: "The node was low on resource: memory. ",
  conditions: [{ type: "DisruptionTarget", status: "True", reason: "TerminationByKubelet" }],
};

async function setup(
  mode: EnforceMode,
  extra: Partial<
    Pick<ClusterPodsOptions, "preflight" | "dryRunFirst" | "evictionRequests" | "onPreflightRefused">
  > = {},
): Promise<{ api: FakeApi; pods: ClusterPods; set: NodePodSet; lines: string[] }> {
  const api = new FakeApi();
  api.pods = [rawPod("a", "uid-a"), rawPod("b", "uid-b"), rawPod("done", "uid-done", "Succeeded")];
  const lines: string[] = [];
  const set = new NodePodSet({ api, clock, log: logger(lines) });
  await set.list();
  const pods = new ClusterPods({
    api,
    pods: set,
    mode,
    clock,
    log: logger(lines),
    decode: (raw, issues) => decodePod(raw, "pod", issues),
    newIssues: () => new IssueList(),
    ...extra,
  });
  return { api, pods, set, lines };
}

describe("ClusterPods", () => {
  test("active pods: not terminal; the raw objects behind the answer are kept for the trace", async () => {
    const { pods } = await setup("delete");
    assert.deepEqual(
      pods.activePods().map((p) => p.key),
      ["default/a", "default/b"],
    );
    assert.deepEqual(
      pods.activeRaw.map((r) => (r as { metadata: { uid: string } }).metadata.uid),
      ["uid-a", "uid-b"],
    );
  });

  test("enforce: status, event, delete in that order; the pod stops being active at once and is cleaned up when gone from the API", async () => {
    const { api, pods, set } = await setup("delete");
    const [a] = pods.activePods();
    assert.ok(a !== undefined);
    await pods.kill(a, 1, STATUS);
    assert.deepEqual(api.calls, ["patch a", "event a", "delete a"]);
    assert.deepEqual(
      pods.activePods().map((p) => p.key),
      ["default/b"],
      "never chosen twice",
    );
    assert.equal(await pods.isCleanedUp(a), false, "still in the API: its containers may still hold memory");
    set.apply({ type: "MODIFIED", pod: rawPod("a", "uid-a", "Failed") });
    assert.equal(await pods.isCleanedUp(a), false, "Failed (our own status patch) is not gone");
    set.apply({ type: "DELETED", pod: rawPod("a", "uid-a", "Failed") });
    assert.equal(await pods.isCleanedUp(a), true);
  });

  test("a pod already gone (404 on the status patch) is done: no event, no delete", async () => {
    const { api, pods } = await setup("delete");
    api.answers.patch = { kind: "gone" };
    const [a] = pods.activePods();
    assert.ok(a !== undefined);
    const r = await pods.kill(a, 1, STATUS);
    assert.equal(r.terminatedAt, 1000);
    assert.deepEqual(api.calls, ["patch a"]);
  });

  test("a refused delete is a failed kill: it throws, and the pod may be chosen again", async () => {
    const { api, pods } = await setup("delete");
    api.answers.delete = { kind: "refused", status: 403, message: 'pods "a" is forbidden' };
    const [a] = pods.activePods();
    assert.ok(a !== undefined);
    await assert.rejects(
      pods.kill(a, 1, STATUS),
      (e: unknown) =>
        e instanceof EvictionRefusedError && /DELETE pod default\/a refused \(403\)/.test(e.message),
    );
    assert.deepEqual(
      pods.activePods().map((p) => p.key),
      ["default/a", "default/b"],
    );
  });

  test("a failed event is logged, not fatal: the eviction goes on", async () => {
    const { api, pods, lines } = await setup("delete");
    api.answers.event = new Error("socket hang up");
    const [a] = pods.activePods();
    assert.ok(a !== undefined);
    await pods.kill(a, 1, STATUS);
    assert.deepEqual(api.calls, ["patch a", "event a", "delete a"]);
    assert.ok(lines.some((l) => l.startsWith("warn cannot create the event")));
  });

  test("a pod that finished before its kill came is left as it was in every mode: nothing written, nothing waited for", async () => {
    for (const mode of ["delete", "eviction-api", "shadow"] as const) {
      const { api, pods, set, lines } = await setup(mode, { preflight: true, evictionRequests: true });
      const [a] = pods.activePods();
      assert.ok(a !== undefined);
      set.apply({ type: "MODIFIED", pod: rawPod("a", "uid-a", "Succeeded") });
      for (const urgency of ["hard", "soft"] as const) {
        const r = await pods.kill(a, 1, STATUS, {}, urgency);
        assert.equal(r.terminatedAt, 1000);
        assert.deepEqual(await r.done, { ok: true, stuck: [] });
      }
      assert.deepEqual(api.calls, [], `${mode}: nothing asked of the API`);
      assert.deepEqual(api.events, []);
      assert.ok(lines.includes("info default/a has already finished (Succeeded): nothing to evict"));
      assert.equal(await pods.isCleanedUp(a), true, `${mode}: nothing of evictd's to wait for`);
      assert.ok(set.get("uid-a") !== undefined, "its object stays, as its owner keeps it");
    }
  });

  test("Eviction API mode posts an eviction (no status patch, no delete); shadow mode writes nothing", async () => {
    const viaApi = await setup("eviction-api");
    const [a] = viaApi.pods.activePods();
    assert.ok(a !== undefined);
    await viaApi.pods.kill(a, 1, STATUS);
    assert.deepEqual(viaApi.api.calls, ["evict a", "event a"]);

    const shadow = await setup("shadow");
    const [s] = shadow.pods.activePods();
    assert.ok(s !== undefined);
    await shadow.pods.kill(s, 1, STATUS);
    assert.deepEqual(shadow.api.calls, []);
    assert.ok(shadow.lines.some((l) => l.startsWith("info shadow mode: would evict default/a")));
    assert.deepEqual(
      shadow.pods.activePods().map((p) => p.key),
      ["default/a", "default/b"],
      "nothing happened to it",
    );
    assert.deepEqual(
      [await shadow.pods.containerGC(), await shadow.pods.imageGC()].map((r) => r.freedBytes),
      [0, 0],
    );
  });
});

describe("ClusterPods: preflight and EvictionRequests", () => {
  const BUDGET =
    "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget web needs 2 healthy pods and has 2 currently";

  test("no preflight unless asked for, and never in shadow mode", async () => {
    assert.equal((await setup("eviction-api")).pods.preflight, undefined);
    assert.equal((await setup("shadow", { preflight: true })).pods.preflight, undefined);
    assert.notEqual((await setup("delete", { preflight: true })).pods.preflight, undefined);
  });

  test("through the Eviction API a preflight only where it asks: with a dry run first, or for soft evictions that become EvictionRequests", async () => {
    assert.equal(
      (await setup("eviction-api", { preflight: true })).pods.preflight,
      undefined,
      "the eviction's own refusal answers: nothing to ask first",
    );
    assert.notEqual(
      (await setup("eviction-api", { preflight: true, dryRunFirst: true })).pods.preflight,
      undefined,
    );
    assert.notEqual(
      (await setup("eviction-api", { preflight: true, evictionRequests: true })).pods.preflight,
      undefined,
    );
  });

  test("a refusal: reported (log, one event per interval, the callback), and the pod left out of the step's trace pods", async () => {
    const refusals: string[] = [];
    const { api, pods, lines } = await setup("eviction-api", {
      preflight: true,
      dryRunFirst: true,
      onPreflightRefused: (pod, reason) => refusals.push(`${pod.name}: ${reason}`),
    });
    const [a] = pods.activePods();
    assert.ok(a !== undefined && pods.preflight !== undefined);
    api.preflights = [
      { kind: "blocked", message: BUDGET },
      { kind: "blocked", message: BUDGET },
    ];
    assert.deepEqual(await pods.preflight(a, 30, STATUS, "hard"), { verdict: "refused", reason: BUDGET });
    assert.deepEqual(refusals, [`a: ${BUDGET}`]);
    assert.ok(
      lines.some((l) => l.startsWith("warn evicting default/a would violate its PodDisruptionBudget")),
    );
    assert.deepEqual(
      api.events.map((e) => [e.type, e.reason]),
      [["Warning", EVICTION_BLOCKED_EVENT_REASON]],
    );
    assert.match(
      api.events[0]?.message ?? "",
      /^The node was low on resource: memory\. Not evicted: Cannot evict pod/,
    );
    assert.deepEqual(
      pods.activeRaw.map((r) => (r as { metadata: { uid: string } }).metadata.uid),
      ["uid-b"],
      "the decision of this step was made without it",
    );
    // The same pod refused again within the interval: counted, no second event.
    assert.equal((await pods.preflight(a, 30, STATUS, "hard")).verdict, "refused");
    assert.equal(refusals.length, 2);
    assert.equal(api.events.length, 1, `one event per ${BLOCKED_EVENT_INTERVAL_MS / 60_000} minutes`);
    // The next step starts with every active pod again.
    pods.activePods();
    assert.equal(pods.activeRaw.length, 2);
  });

  test("through the Eviction API the eviction's own refusal is the answer: no preflight, a refusal reported and thrown as blocked, the pod left out of the step's trace pods", async () => {
    const refusals: string[] = [];
    const { api, pods, lines } = await setup("eviction-api", {
      preflight: true,
      onPreflightRefused: (pod, reason) => refusals.push(`${pod.name}: ${reason}`),
    });
    const [a, b] = pods.activePods();
    assert.ok(a !== undefined && b !== undefined);
    assert.equal(pods.preflight, undefined, "nothing to ask: the eviction will answer");
    api.attempts = [{ kind: "blocked", message: BUDGET }];
    await assert.rejects(pods.kill(a, 30, STATUS, {}, "hard"), (e: unknown) => {
      assert.ok(e instanceof EvictionBlockedError);
      assert.equal(e.reason, BUDGET);
      return true;
    });
    assert.deepEqual(api.calls, ["evict-once a", "event a"]);
    assert.deepEqual(refusals, [`a: ${BUDGET}`]);
    assert.ok(
      lines.some((l) => l.startsWith("warn evicting default/a would violate its PodDisruptionBudget")),
    );
    assert.deepEqual(
      api.events.map((e) => e.reason),
      [EVICTION_BLOCKED_EVENT_REASON],
    );
    assert.deepEqual(
      pods.activeRaw.map((r) => (r as { metadata: { uid: string } }).metadata.uid),
      ["uid-b"],
    );
    // Refused, not in flight: the next step may pick it again.
    assert.deepEqual(
      pods.activePods().map((p) => p.name),
      ["a", "b"],
    );
    // Allowed: evicted with one request, and the Evicted event.
    await pods.kill(b, 30, STATUS, {}, "hard");
    assert.deepEqual(api.calls.slice(2), ["evict-once b", "event b"]);
    assert.equal(api.events.at(-1)?.reason, "Evicted");
    assert.deepEqual(
      pods.activePods().map((p) => p.name),
      ["a"],
    );
  });

  test("through the Eviction API, a soft eviction that will be an EvictionRequest is asked about with a dry run (no budget refuses a request)", async () => {
    const { api, pods } = await setup("eviction-api", { preflight: true, evictionRequests: true });
    const [a] = pods.activePods();
    assert.ok(a !== undefined && pods.preflight !== undefined);
    api.preflights = [{ kind: "blocked", message: BUDGET }];
    assert.deepEqual(await pods.preflight(a, 30, STATUS, "soft"), { verdict: "refused", reason: BUDGET });
    assert.deepEqual(await pods.preflight(a, 30, STATUS, "hard"), { verdict: "allowed" });
    assert.deepEqual(
      api.calls.filter((c) => c.startsWith("preflight")),
      ["preflight a"],
    );
  });

  test("no verdict (a permission missing) lets the eviction go ahead, with a warning", async () => {
    const { api, pods, lines } = await setup("delete", { preflight: true });
    const [a] = pods.activePods();
    assert.ok(a !== undefined && pods.preflight !== undefined);
    api.preflights = [{ kind: "unknown", status: 403, message: "forbidden" }];
    assert.deepEqual(await pods.preflight(a, 30, STATUS, "hard"), { verdict: "allowed" });
    assert.ok(
      lines.some((l) => /^warn the preflight of default\/a's eviction gave no verdict \(forbidden\)/.test(l)),
    );
    assert.deepEqual(api.events, []);
  });

  test("EvictionRequests: a soft eviction is requested (event, no pods/eviction); a hard one is evicted; the request is deleted once the pod is gone", async () => {
    const { api, pods, set } = await setup("eviction-api", { evictionRequests: true });
    const [a, b] = pods.activePods();
    assert.ok(a !== undefined && b !== undefined);
    await pods.kill(a, 20, STATUS, {}, "soft");
    assert.deepEqual(api.calls, ["request a", "event a"]);
    assert.equal(api.events[0]?.reason, EVICTION_REQUESTED_EVENT_REASON);
    await pods.kill(b, 1, STATUS, {}, "hard");
    assert.deepEqual(api.calls.slice(2), ["evict b", "event b"]);
    set.apply({ type: "DELETED", pod: rawPod("a", "uid-a") });
    assert.equal(await pods.isCleanedUp(a), true);
    await Promise.resolve();
    assert.ok(api.calls.includes("unrequest a"));
  });

  test("EvictionRequests not served: said once, the eviction goes through pods/eviction, and so do all after it", async () => {
    const { api, pods, lines } = await setup("eviction-api", { evictionRequests: true });
    api.requestAnswer = {
      kind: "not-served",
      message: "404 from POST ...: the server could not find the requested resource",
    };
    const [a, b] = pods.activePods();
    assert.ok(a !== undefined && b !== undefined);
    await pods.kill(a, 20, STATUS, {}, "soft");
    await pods.kill(b, 20, STATUS, {}, "soft");
    assert.deepEqual(api.calls, ["request a", "evict a", "event a", "evict b", "event b"]);
    assert.equal(lines.filter((l) => l.includes("does not serve EvictionRequests")).length, 1);
  });

  test("without --use-eviction-api there is no EvictionRequest: delete mode stays the kubelet's way", async () => {
    const { api, pods } = await setup("delete", { evictionRequests: true });
    const [a] = pods.activePods();
    assert.ok(a !== undefined);
    await pods.kill(a, 20, STATUS, {}, "soft");
    assert.deepEqual(api.calls, ["patch a", "event a", "delete a"]);
  });
});

describe("NodePodSet", () => {
  test("lists, watches from the list's version, applies events, relists on 410 and backs off on errors", async () => {
    const api = new FakeApi();
    api.pods = [rawPod("a", "uid-a")];
    const lines: string[] = [];
    const sleeps: number[] = [];
    const set = new NodePodSet({
      api,
      clock: { now: () => 0, sleep: (ms) => (sleeps.push(ms), Promise.resolve()) },
      log: logger(lines),
      backoff: { minMs: 100, maxMs: 400 },
    });
    const controller = new AbortController();
    api.watches = [
      (onEvent) => {
        onEvent({ type: "ADDED", pod: rawPod("b", "uid-b") });
        onEvent({ type: "DELETED", pod: rawPod("a", "uid-a") });
        return Promise.resolve(); // the server ended the watch: resume from the last version
      },
      () => Promise.reject(new WatchExpiredError("too old")),
      () => Promise.reject(new Error("connection reset")),
      () => Promise.reject(new Error("connection reset")),
      () => {
        controller.abort();
        return Promise.resolve();
      },
    ];
    const run = set.run(controller.signal);
    await set.waitForSync();
    await run;
    assert.deepEqual(api.calls, ["watch 10", "watch 1", "watch 20", "watch 30", "watch 40"]);
    assert.equal(api.lists, 4, "first list, relist after 410, relist after each failure");
    assert.deepEqual(sleeps, [100, 200], "backs off, doubling");
    assert.ok(lines.some((l) => l === "info pod watch expired: listing again"));
  });
});
