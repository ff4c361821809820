/**
 * The PodsPort contract against the loop thread's pods port (RemotePods), the one `evictd run`'s
 * eviction loop drives: its side of the two threads' channels here, the main thread's side as
 * `evictd run` wires it (the process runtime answering requests, taking in kill notices and
 * restated statuses, describing the pods after every change), both on this thread over real
 * MessagePorts. In cgroups the loop's side sends SIGTERM itself; without them, and in a dry run,
 * the main thread's pods port does the kill.
 */
import { MessageChannel, receiveMessageOnPort } from "node:worker_threads";
import type { KillResult, PodsPort } from "../../src/app/ports.js";
import {
  errorData,
  type FromLoopThread,
  type KillNotice,
  type LoopRequest,
  type PodsUpdate,
  type ToLoopThread,
} from "../../src/daemon/loop-thread/protocol.js";
import { MainThreadChannel, RemotePods } from "../../src/daemon/loop-thread/remote-pods.js";
import { DryRunPods } from "../../src/runtime/dry-run-pods.js";
import { podsPortContract, strangerPod, type PodsPortImplementation } from "./pods-port.contract.js";
import { BACKOFF, cgroupSkip, processSkip, RealPodsNode, systemClock } from "./real-pods.js";

function remote(cgroups: boolean, dryRun: boolean): PodsPortImplementation {
  return {
    name: `RemotePods ${cgroups ? "in cgroups (the loop thread signals)" : "without cgroups"}${dryRun ? ", dry run" : ""}`,
    skip: cgroups ? cgroupSkip : processSkip,
    capabilities: {
      kills: !dryRun,
      restate: true,
      preflight: "absent",
      reclaim: { containers: !dryRun, images: false },
    },
    async make() {
      const requests = new MessageChannel();
      const kills = new MessageChannel();
      // The main thread's side: port2 of each channel; the loop thread's: port1.
      const takeInKills = (): void => {
        for (
          let m = receiveMessageOnPort(kills.port2);
          m !== undefined;
          m = receiveMessageOnPort(kills.port2)
        )
          takeIn(m.message as KillNotice);
      };
      // The loop thread's side.
      const main = new MainThreadChannel(requests.port1, kills.port1);
      requests.port1.on("message", (message: ToLoopThread) => main.settle(message));
      const port = new RemotePods(main, { dryRun });
      let updateQueued = false;
      let updating: Promise<void> = Promise.resolve();
      const node = await RealPodsNode.start({
        cgroups,
        takeInKills,
        onPodsChanged: () => {
          if (updateQueued) return;
          updateQueued = true;
          updating = new Promise<void>((resolve) =>
            setImmediate(() => {
              updateQueued = false;
              // As a postMessage would deliver it: a copy.
              podsUpdate()
                .then(
                  (update) => port.update(structuredClone(update)),
                  (e: unknown) =>
                    node.log.warn({ err: String(e) }, "cannot describe the pods to the loop thread"),
                )
                .finally(resolve);
            }),
          );
        },
      });
      const runtime = node.runtime;
      const pods: PodsPort = dryRun
        ? new DryRunPods({ pods: runtime, clock: systemClock, logger: node.log })
        : runtime;
      const podsUpdate = async (): Promise<PodsUpdate> => ({
        active: pods.activePods(),
        ...(cgroups ? { targets: await runtime.statsTargets() } : {}),
        signal: runtime.signalTargets(),
      });
      const podByUid = (uid: string) => runtime.knownPods().find((p) => p.uid === uid);
      const toLoop = (message: ToLoopThread): void => requests.port2.postMessage(message);
      const answer = async (request: LoopRequest): Promise<unknown> => {
        switch (request.op) {
          case "isCleanedUp": {
            const pod = podByUid(request.uid);
            return pod === undefined ? true : pods.isCleanedUp(pod);
          }
          case "containerGC":
            return pods.containerGC();
          case "imageGC":
            return pods.imageGC();
          case "statsTargets":
            return runtime.statsTargets();
        }
      };
      function takeIn(notice: KillNotice): void {
        const reply = (result: KillResult): void => {
          toLoop({ type: "reply", id: notice.id, value: { terminatedAt: result.terminatedAt } });
          result.done.then(
            (end) => toLoop({ type: "killDone", id: notice.id, ok: end.ok, stuck: end.stuck }),
            () => toLoop({ type: "killDone", id: notice.id, ok: false, stuck: [] }),
          );
        };
        const pod = podByUid(notice.pod.uid) ?? notice.pod;
        let result: KillResult | Promise<KillResult>;
        try {
          result =
            notice.signalled !== undefined
              ? runtime.killSignalled(pod, notice.gracePeriodSeconds, notice.status, notice.signalled)
              : pods.kill(pod, notice.gracePeriodSeconds, notice.status);
        } catch (error) {
          toLoop({ type: "reply", id: notice.id, error: errorData(error) });
          return;
        }
        if (result instanceof Promise)
          result.then(reply, (error: unknown) =>
            toLoop({ type: "reply", id: notice.id, error: errorData(error) }),
          );
        else reply(result);
      }
      kills.port2.on("message", (notice: KillNotice) => takeIn(notice));
      requests.port2.on("message", (message: FromLoopThread) => {
        if (message.type === "request") {
          takeInKills();
          answer(message.request).then(
            (value) => toLoop({ type: "reply", id: message.id, value }),
            (error: unknown) => toLoop({ type: "reply", id: message.id, error: errorData(error) }),
          );
        } else if (message.type === "restate") {
          takeInKills();
          const pod = podByUid(message.uid);
          if (pod !== undefined) pods.restate?.(pod, message.status);
        }
      });

      port.update(structuredClone(await podsUpdate()));
      const stranger = strangerPod();

      const settle = async (): Promise<void> => {
        // A round trip: everything posted before it (restated statuses, kill notices) is handled.
        await port.isCleanedUp(stranger);
        await runtime.flush();
        while (updateQueued) await updating;
        await updating;
      };
      return {
        port,
        addPods: async (names, options) => {
          const added = await node.addPods(names, options?.lingering === true);
          await settle();
          return added;
        },
        addEndedPods: async (names) => {
          const ended = await node.addEndedPods(names);
          await settle();
          return ended;
        },
        settle,
        letGo: () => Promise.resolve(),
        comebackMs: 2 * BACKOFF.maxMs,
        pids: (pod) => node.pids(pod),
        statusMessage: (pod) => Promise.resolve(node.statusMessage(pod)),
        recentLog: () => node.log.text(),
        close: async () => {
          try {
            await node.close();
          } finally {
            for (const p of [requests.port1, requests.port2, kills.port1, kills.port2]) p.close();
          }
        },
      };
    },
  };
}

podsPortContract(remote(true, false));
podsPortContract(remote(false, false));
podsPortContract(remote(false, true));
