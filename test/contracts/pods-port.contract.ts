/**
 * The PodsPort contract (src/app/ports.ts): what every pods port the eviction loop drives promises,
 * as cases run against a subject that an implementation's factory makes. The process pod runtime,
 * the dry run, the loop thread's remote pods and the cluster's pods run it
 * (test/contracts/pods-port-*.test.ts). Where an implementation legitimately differs (a dry run or
 * shadow mode kills nothing; a kill that a budget can refuse is its own preflight), its
 * capabilities say so and the case checks the documented difference instead.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import {
  EvictionBlockedError,
  type FailedPodStatus,
  type GcReport,
  type PodsPort,
} from "../../src/app/ports.js";
import { IssueList } from "../../src/core/issues.js";
import type { Pod } from "../../src/core/model.js";
import { decodePod } from "../../src/core/pod/decode-pod.js";
import { scaled } from "../../src/testing/slowdown.js";

/** What an implementation does, where the contract allows a choice. */
export interface PodsPortCapabilities {
  /**
   * Whether a kill acts. `false`: the port only reports what it would do (a dry run, shadow mode):
   * the pod stays active and untouched, no status is written, and nothing is left to clean up.
   */
  readonly kills: boolean;
  /** Whether `restate` is present (absent: statuses are final). */
  readonly restate: boolean;
  /**
   * `absent`: no preflight. `asks`: it asks the node, and a PodDisruptionBudget that allows no
   * disruption comes back `refused`. `kill-answers`: no preflight either, as it would ask nothing:
   * the kill itself is refused with an {@link EvictionBlockedError}.
   */
  readonly preflight: "absent" | "asks" | "kill-answers";
  /** What each reclaim can free here; `false`: it frees nothing and its note says why. */
  readonly reclaim: { readonly containers: boolean; readonly images: boolean };
}

/** One implementation, set up on a node of its own for the contract's cases. */
export interface PodsPortSubject {
  readonly port: PodsPort;
  /**
   * Admits and starts pods of these names, in this order, and resolves once the port lists them,
   * running. A `lingering` pod outlives SIGTERM until its grace period ends (a real pod ignores the
   * signal; a cluster pod stays until {@link letGo}).
   */
  addPods(names: readonly string[], options?: { readonly lingering?: boolean }): Promise<Pod[]>;
  /** Two pods on the node that are not active: one that ran to its end, one refused admission (or failed). */
  addEndedPods(names: readonly [string, string]): Promise<Pod[]>;
  /** Resolves once the port has caught up with the node (messages in flight delivered and handled). */
  settle(): Promise<void>;
  /**
   * Ends a killed pod's termination where something else ends it (the kubelet, removing the pod's
   * object once its containers stopped); nothing where the kill itself ends the pod.
   */
  letGo(pod: Pod): Promise<void>;
  /** How long a killed pod that was going to come back would take to (a restart's back-off). */
  readonly comebackMs: number;
  /** The pod's live processes; absent where the port's pods have none on this machine. */
  readonly pids?: (pod: Pod) => Promise<number[]>;
  /** The message of the status the pod was left with, as written so far; absent where it cannot be read. */
  readonly statusMessage?: (pod: Pod) => Promise<string | undefined>;
  /**
   * All the node keeps of the pod's status now (phase, reason, message, conditions; a cluster pod's
   * whole object), to compare before and after; absent where it cannot be read.
   */
  readonly status?: (pod: Pod) => Promise<unknown>;
  /** Makes an eviction of the pod refused from now on (a PodDisruptionBudget); needed with a preflight. */
  readonly protect?: (pod: Pod) => Promise<void>;
  /** Recent log lines of what runs the pods, shown when a wait times out. */
  readonly recentLog?: () => string;
  /** Kills what is left and releases everything the subject made (processes, cgroups, files, servers). */
  close(): Promise<void>;
}

export interface PodsPortImplementation {
  readonly name: string;
  readonly skip: string | false;
  readonly capabilities: PodsPortCapabilities;
  make(): Promise<PodsPortSubject>;
}

/** A Failed status with the kubelet's DisruptionTarget condition, worded `message`. */
export function evictedStatus(message: string): FailedPodStatus {
  return {
    phase: "Failed",
    reason: "Evicted",
    message,
    conditions: [{ type: "DisruptionTarget", status: "True", reason: "TerminationByKubelet", message }],
  };
}

/** A pod no node of the contract has ever had. */
export function strangerPod(): Pod {
  const issues = new IssueList();
  const pod = decodePod(
    {
      metadata: { name: "stranger", namespace: "default", uid: randomUUID() },
      spec: { containers: [{ name: "c" }] },
    },
    "pod",
    issues,
  );
  assert.deepEqual(issues.items, []);
  assert.ok(pod !== undefined);
  return pod;
}

/** Whether a process is alive (a zombie is not: it has ended and only waits to be reaped). */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const uidsOf = (pods: readonly Pod[]): string[] => pods.map((p) => p.uid);

/** Runs the contract's cases against one implementation. */
export function podsPortContract(implementation: PodsPortImplementation): void {
  const can = implementation.capabilities;
  describe(`PodsPort contract: ${implementation.name}`, { skip: implementation.skip }, () => {
    let made: PodsPortSubject | undefined;
    before(async () => {
      made = await implementation.make();
    });
    after(async () => {
      await made?.close();
    });
    const subject = (): PodsPortSubject => {
      assert.ok(made !== undefined, "the subject was made");
      return made;
    };
    let count = 0;
    /** Names unique to the suite (lower case, DNS-safe). */
    const names = (...labels: string[]): string[] => labels.map((l) => `pp${++count}-${l}`);

    /** Polls `check` until it holds, or fails after `unscaledMs` with the subject's recent log. */
    const until = async (what: string, check: () => boolean | Promise<boolean>, unscaledMs = 10_000) => {
      const deadline = Date.now() + scaled(unscaledMs);
      while (!(await check())) {
        if (Date.now() > deadline)
          assert.fail(`timed out waiting until ${what}\n${subject().recentLog?.() ?? ""}`);
        await sleep(25);
      }
    };
    const activeUids = (): Set<string> => new Set(uidsOf(subject().port.activePods()));
    const alive = async (pod: Pod): Promise<number[]> =>
      ((await subject().pids?.(pod)) ?? []).filter(processAlive);

    test("activePods: the admitted pods in a stable order (the order they came), the same on every call", async () => {
      const s = subject();
      const added = await s.addPods(names("a", "b", "c"));
      const mine = new Set(uidsOf(added));
      const first = uidsOf(s.port.activePods());
      assert.deepEqual(
        first.filter((uid) => mine.has(uid)),
        uidsOf(added),
      );
      assert.deepEqual(
        uidsOf(s.port.activePods()),
        first,
        "a second call answers the same, in the same order",
      );
      await s.settle();
      assert.deepEqual(uidsOf(s.port.activePods()), first, "and so does a call once the port caught up");
      for (const pod of s.port.activePods().filter((p) => mine.has(p.uid)))
        assert.equal(pod.key, `${pod.namespace}/${pod.name}`);
    });

    test("activePods leaves out a pod that ran to its end and one refused admission", async () => {
      const s = subject();
      const [running] = await s.addPods(names("running"));
      const ended = await s.addEndedPods(names("ended", "refused") as [string, string]);
      await s.settle();
      const active = activeUids();
      assert.ok(running !== undefined && active.has(running.uid));
      for (const pod of ended) assert.ok(!active.has(pod.uid), `${pod.key} is not active`);
    });

    test("isCleanedUp: a pod the node never had is cleaned up; a running one is not, unless the port kills nothing", async () => {
      const s = subject();
      assert.equal(await s.port.isCleanedUp(strangerPod()), true);
      const [running] = await s.addPods(names("running"));
      assert.ok(running !== undefined);
      assert.equal(
        await s.port.isCleanedUp(running),
        !can.kills,
        can.kills
          ? "its processes (or its object) are still there"
          : "nothing was killed, so nothing is left over",
      );
    });

    test(
      can.kills
        ? "kill: a KillResult at once (terminatedAt, done); the pod leaves activePods at once, is cleaned up once gone, its status written"
        : "kill only reports: a KillResult at once, done already; the pod stays active and untouched, nothing to clean up, no status written",
      async () => {
        const s = subject();
        const [victim, bystander] = await s.addPods(names("victim", "bystander"), { lingering: true });
        assert.ok(victim !== undefined && bystander !== undefined);
        const pids = await alive(victim);
        if (s.pids !== undefined) assert.ok(pids.length > 0, "the victim runs processes");
        const message = `${victim.key} killed by the contract`;
        const before = Date.now();
        const result = await s.port.kill(victim, 1, evictedStatus(message));
        const returned = Date.now();
        assert.ok(
          Number.isFinite(result.terminatedAt) &&
            result.terminatedAt >= before &&
            result.terminatedAt <= returned,
          `terminatedAt ${result.terminatedAt} is when the kill was under way (${before}..${returned})`,
        );
        assert.ok(result.done instanceof Promise);
        const active = activeUids();
        assert.ok(active.has(bystander.uid), "the other pod is untouched");
        if (!can.kills) {
          assert.ok(active.has(victim.uid), "the pod stays active: the port only reports");
          assert.deepEqual(await result.done, { ok: true, stuck: [] });
          assert.equal(await s.port.isCleanedUp(victim), true, "nothing was killed, so nothing is left over");
          await s.settle();
          assert.ok(activeUids().has(victim.uid));
          assert.deepEqual(await alive(victim), pids, "its processes keep running");
          if (s.statusMessage !== undefined) assert.equal(await s.statusMessage(victim), undefined);
          return;
        }
        assert.ok(!active.has(victim.uid), "a pod being killed is not active");
        assert.equal(await s.port.isCleanedUp(victim), false, "it outlives SIGTERM for its grace period");
        await s.letGo(victim);
        assert.deepEqual(await result.done, { ok: true, stuck: [] });
        await until(`${victim.key} is cleaned up`, () => s.port.isCleanedUp(victim));
        assert.deepEqual(await alive(victim), [], "no process of the pod is left");
        for (const pid of pids) assert.ok(!processAlive(pid), `process ${pid} is gone`);
        if (s.statusMessage !== undefined)
          assert.equal(await s.statusMessage(victim), message, "the status given is the one written");
        await s.settle();
        assert.ok(!activeUids().has(victim.uid));
        assert.ok(activeUids().has(bystander.uid));
      },
    );

    test("killing a pod that has already finished leaves its status as it was", async (t) => {
      const s = subject();
      const read = s.status;
      if (read === undefined) {
        t.skip("the port's node does not let a pod's status be read");
        return;
      }
      const finished = await s.addEndedPods(names("finished", "refused") as [string, string]);
      await s.settle();
      for (const pod of finished) {
        const before = await read(pod);
        assert.ok(before !== undefined, `${pod.key} is on the node`);
        const message = `${pod.key} killed after it finished`;
        const result = await s.port.kill(pod, 0, evictedStatus(message));
        assert.ok(Number.isFinite(result.terminatedAt));
        assert.deepEqual(await result.done, { ok: true, stuck: [] }, "nothing to wait for");
        await s.settle();
        assert.deepEqual(await read(pod), before, `${pod.key}'s status is as it was`);
        if (s.statusMessage !== undefined) assert.notEqual(await s.statusMessage(pod), message);
        assert.ok(!activeUids().has(pod.uid), `${pod.key} is still not active`);
      }
    });

    test(
      "a killed pod never comes back: not active once cleaned up, nor after it would have been restarted",
      { skip: can.kills ? false : "the port kills nothing (the kill case checks that the pod stays)" },
      async () => {
        const s = subject();
        const [pod] = await s.addPods(names("gone"));
        assert.ok(pod !== undefined);
        const result = await s.port.kill(pod, 0, evictedStatus(`${pod.key} killed for good`));
        await s.letGo(pod);
        await result.done;
        await until(`${pod.key} is cleaned up`, () => s.port.isCleanedUp(pod));
        await s.settle();
        assert.ok(!activeUids().has(pod.uid));
        await sleep(s.comebackMs);
        await s.settle();
        assert.ok(!activeUids().has(pod.uid), "not active again");
        assert.deepEqual(await alive(pod), [], "not started again");
        assert.equal(await s.port.isCleanedUp(pod), true, "and still cleaned up");
      },
    );

    test(
      can.kills
        ? "a second kill of a pod being killed resolves and its shorter grace period ends the pod; a kill after the pod is gone resolves, and the pod stays gone"
        : "a second kill is reported again and changes nothing",
      async () => {
        const s = subject();
        const [pod] = await s.addPods(names("twice"), { lingering: true });
        assert.ok(pod !== undefined);
        const first = await s.port.kill(pod, 30, evictedStatus(`${pod.key}: first kill`));
        const second = await s.port.kill(pod, 0, evictedStatus(`${pod.key}: second kill`));
        assert.ok(Number.isFinite(second.terminatedAt) && second.terminatedAt >= first.terminatedAt);
        assert.equal(activeUids().has(pod.uid), !can.kills);
        await s.letGo(pod);
        // Well within the first kill's 30 s: the second one's grace period is the one that counts.
        const ends = await Promise.all([first.done, second.done]);
        for (const end of ends) assert.deepEqual(end, { ok: true, stuck: [] });
        await until(`${pod.key} is cleaned up`, () => s.port.isCleanedUp(pod), 10_000);
        const third = await s.port.kill(pod, 0, evictedStatus(`${pod.key}: third kill`));
        assert.ok(Number.isFinite(third.terminatedAt));
        assert.deepEqual(await third.done, { ok: true, stuck: [] });
        await s.settle();
        assert.equal(activeUids().has(pod.uid), !can.kills);
        assert.equal(await s.port.isCleanedUp(pod), true);
        if (can.kills) assert.deepEqual(await alive(pod), [], "not started again");
        else if (s.pids !== undefined) assert.ok((await alive(pod)).length > 0, "its processes keep running");
      },
    );

    if (!can.restate) {
      test("restate is absent: statuses are final", () => {
        assert.equal(typeof subject().port.restate, "undefined");
      });
    } else if (!can.kills) {
      test("restate changes nothing where nothing is killed", async () => {
        const s = subject();
        const [pod] = await s.addPods(names("restated"));
        assert.ok(pod !== undefined && s.port.restate !== undefined);
        s.port.restate(pod, evictedStatus("restated while running"));
        await (
          await s.port.kill(pod, 1, evictedStatus("would be killed"))
        ).done;
        s.port.restate(pod, evictedStatus("restated after a reported kill"));
        await s.settle();
        assert.ok(activeUids().has(pod.uid));
        if (s.statusMessage !== undefined) assert.equal(await s.statusMessage(pod), undefined);
      });
    } else {
      test("restate replaces the status a pod being killed is left with; it does nothing for a running pod or a finished kill", async () => {
        const s = subject();
        const read = s.statusMessage;
        const restate = s.port.restate?.bind(s.port);
        assert.ok(
          read !== undefined && restate !== undefined,
          "a port that restates lets its statuses be read",
        );
        const [pod, running] = await s.addPods(names("restated", "running"), { lingering: true });
        assert.ok(pod !== undefined && running !== undefined);
        restate(running, evictedStatus(`${running.key}: restated while running`));
        const result = await s.port.kill(pod, 1, evictedStatus(`${pod.key}: first words`));
        restate(pod, evictedStatus(`${pod.key}: fresher words`));
        await s.letGo(pod);
        await result.done;
        await s.settle();
        assert.equal(await read(pod), `${pod.key}: fresher words`);
        restate(pod, evictedStatus(`${pod.key}: too late`));
        await s.settle();
        assert.equal(await read(pod), `${pod.key}: fresher words`, "a finished kill's status stays");
        assert.ok(activeUids().has(running.uid), "restating a running pod does not kill it");
        assert.equal(await read(running), undefined, "nor write its status");
        const later = await s.port.kill(running, 0, evictedStatus(`${running.key}: its own words`));
        await s.letGo(running);
        await later.done;
        await s.settle();
        assert.equal(await read(running), `${running.key}: its own words`);
      });
    }

    if (can.preflight === "absent") {
      test("preflight is absent: no eviction is asked about first", () => {
        assert.equal(typeof subject().port.preflight, "undefined");
      });
    } else if (can.preflight === "asks") {
      test("preflight answers allowed for a free pod, refused (with why) for one a budget protects, and evicts nothing", async () => {
        const s = subject();
        const [free, guarded] = await s.addPods(names("free", "guarded"));
        assert.ok(free !== undefined && guarded !== undefined);
        assert.ok(s.port.preflight !== undefined && s.protect !== undefined);
        await s.protect(guarded);
        const status = evictedStatus("asked about by the contract");
        assert.deepEqual(await s.port.preflight(free, 1, status, "hard"), { verdict: "allowed" });
        const refused = await s.port.preflight(guarded, 1, status, "hard");
        assert.equal(refused.verdict, "refused");
        assert.ok(refused.verdict === "refused" && refused.reason.length > 0, "the refusal says why");
        await s.settle();
        const active = activeUids();
        for (const pod of [free, guarded]) {
          assert.ok(active.has(pod.uid), `${pod.key} is still active`);
          assert.equal(await s.port.isCleanedUp(pod), false, `${pod.key} is still on the node`);
        }
      });
    } else {
      test("no preflight, as it would ask nothing; the kill itself is refused with EvictionBlockedError and leaves the pod as it was", async () => {
        const s = subject();
        const [guarded] = await s.addPods(names("guarded"));
        assert.ok(guarded !== undefined);
        assert.equal(typeof s.port.preflight, "undefined");
        assert.ok(s.protect !== undefined);
        await s.protect(guarded);
        const status = evictedStatus("evicted by the contract");
        await assert.rejects(
          s.port.kill(guarded, 1, status),
          (e: unknown) => e instanceof EvictionBlockedError && e.reason.length > 0,
        );
        await s.settle();
        assert.ok(activeUids().has(guarded.uid), "not being killed: it may be chosen again");
        assert.equal(await s.port.isCleanedUp(guarded), false, "still on the node");
      });
    }

    test("containerGC and imageGC resolve to a GcReport", async () => {
      const s = subject();
      const check = (report: GcReport, frees: boolean, what: string): void => {
        assert.ok(Number.isSafeInteger(report.freedBytes) && report.freedBytes >= 0, `${what}: freedBytes`);
        assert.ok(report.note === undefined || (typeof report.note === "string" && report.note !== ""));
        if (!frees) {
          assert.equal(report.freedBytes, 0, `${what} frees nothing here`);
          assert.ok(report.note !== undefined, `${what} says why it frees nothing`);
        }
      };
      check(await s.port.containerGC(), can.reclaim.containers, "containerGC");
      check(await s.port.imageGC(), can.reclaim.images, "imageGC");
    });
  });
}
