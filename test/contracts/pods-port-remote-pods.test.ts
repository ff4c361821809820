/**
 * The PodsPort contract against the loop thread's pods port (RemotePods), the one `evictd run`'s
 * eviction loop drives: its side of the two threads' channels here, the main thread's side as
 * `evictd run` serves it (serve-loop-thread.ts: the process runtime answering requests, taking in
 * kill notices and restated statuses; the pods described after every change), both on this thread
 * over real MessagePorts. In cgroups the loop's side sends SIGTERM itself; without them, and in a
 * dry run, the main thread's pods port does the kill.
 */
import { MessageChannel, receiveMessageOnPort } from "node:worker_threads";
import type { PodsPort } from "../../src/app/ports.js";
import type {
  FromLoopThread,
  KillNotice,
  PodsUpdate,
  ToLoopThread,
} from "../../src/daemon/loop-thread/protocol.js";
import { MainThreadChannel, RemotePods } from "../../src/daemon/loop-thread/remote-pods.js";
import {
  answerKillNotice,
  answerRequest,
  serveLoopThreadRequests,
} from "../../src/daemon/loop-thread/serve-loop-thread.js";
import { DryRunPods } from "../../src/runtime/dry-run-pods.js";
import { podsPortContract, strangerPod, type PodsPortImplementation } from "./pods-port.contract.js";
import { cgroupSkip, processSkip, RealPodsNode, systemClock } from "./real-pods.js";

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
      const served = serveLoopThreadRequests(runtime, pods);
      const toLoop = (message: ToLoopThread): void => requests.port2.postMessage(message);
      function takeIn(notice: KillNotice): void {
        answerKillNotice(notice, served.onKill, toLoop);
      }
      kills.port2.on("message", (notice: KillNotice) => takeIn(notice));
      // As LoopThread dispatches what its worker posts: the kills sent before a message first.
      requests.port2.on("message", (message: FromLoopThread) => {
        if (message.type === "request") {
          takeInKills();
          answerRequest(message.id, message.request, served.onRequest, toLoop);
        } else if (message.type === "restate") {
          takeInKills();
          served.onRestate(message.uid, message.status);
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
        ...node.subject(port),
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
