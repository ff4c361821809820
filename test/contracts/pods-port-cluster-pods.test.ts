/**
 * The PodsPort contract against the cluster's pods port (`evictd watch`), on the fake API server
 * through the real Kubernetes adapter and the node's pod informer, in each enforce mode: shadow
 * (reports only), delete (the kubelet's condition, event and deletion; a dry run of the Eviction
 * asks a PodDisruptionBudget first) and the Eviction API (the eviction's own refusal is the
 * preflight's answer). The fake holds a deleted pod until the test lets it go, as a kubelet
 * stopping its containers would.
 */
import assert from "node:assert/strict";
import { ClusterPods, type EnforceMode } from "../../src/app/cluster/cluster-pods.js";
import { NodePodSet, podIdentity } from "../../src/app/cluster/node-pod-set.js";
import { IssueList } from "../../src/core/issues.js";
import type { Pod } from "../../src/core/model.js";
import { decodePod } from "../../src/core/pod/decode-pod.js";
import { startHarness } from "../k8s/cluster-node-harness.js";
import type { FakePod } from "../harness/fake-api-server/fake-api-server.js";
import { podsPortContract, type PodsPortCapabilities } from "./pods-port.contract.js";
import { RecentLog, systemClock } from "./real-pods.js";

const NAMESPACE = "scraper";

const capabilities: Record<EnforceMode, PodsPortCapabilities> = {
  shadow: {
    kills: false,
    restate: false,
    preflight: "absent",
    reclaim: { containers: false, images: false },
  },
  delete: { kills: true, restate: false, preflight: "asks", reclaim: { containers: false, images: false } },
  "eviction-api": {
    kills: true,
    restate: false,
    preflight: "kill-answers",
    reclaim: { containers: false, images: false },
  },
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

for (const mode of ["shadow", "delete", "eviction-api"] as const) {
  podsPortContract({
    name: `ClusterPods, ${mode}`,
    skip: false,
    capabilities: capabilities[mode],
    async make() {
      const h = await startHarness({ server: { deletion: "hold" } });
      const { server } = h;
      const log = new RecentLog();
      const podSet = new NodePodSet({
        api: h.node,
        clock: systemClock,
        log,
        backoff: { minMs: 20, maxMs: 200 },
      });
      const background = new AbortController();
      const watching = podSet.run(background.signal);
      await podSet.waitForSync();
      const port = new ClusterPods({
        api: h.node,
        pods: podSet,
        mode,
        clock: systemClock,
        log,
        decode: (raw, issues) => decodePod(raw, "pod", issues),
        newIssues: () => new IssueList(),
        ...(mode !== "shadow" ? { preflight: true } : {}),
      });
      const template = server.pod(NAMESPACE, "e2e-statefulset-0");
      assert.ok(template !== undefined);

      /** Every pod on the node with its version, as the API has it and as the informer saw it. */
      const versions = (raws: readonly unknown[]): string =>
        raws
          .map((raw) => podIdentity(raw))
          .map((id) => `${id?.uid}@${id?.resourceVersion}`)
          .sort()
          .join(" ");
      const settle = async (): Promise<void> => {
        const deadline = Date.now() + 10_000;
        while (versions(podSet.all()) !== versions(server.state.pods(server.nodeName))) {
          if (Date.now() > deadline) assert.fail(`the informer did not catch up\n${log.text()}`);
          await sleep(10);
        }
      };
      const add = async (name: string, phase: string): Promise<Pod> => {
        const raw: FakePod = structuredClone(template);
        raw.metadata.name = name;
        raw.metadata.uid = `uid-${name}`;
        raw.metadata["labels"] = { guard: name };
        raw.status = { ...raw.status, phase };
        server.addPod(raw);
        await settle();
        const pod = port.podOf(podSet.get(`uid-${name}`));
        assert.ok(pod !== undefined, `${name} decodes`);
        return pod;
      };
      const addAll = async (names: readonly string[], phases: readonly string[]): Promise<Pod[]> => {
        const out: Pod[] = [];
        for (const [i, name] of names.entries()) out.push(await add(name, phases[i] ?? "Running"));
        return out;
      };

      const statusMessage = (pod: Pod): Promise<string | undefined> => {
        let message: string | undefined;
        const path = `/api/v1/namespaces/${pod.namespace}/pods/${pod.name}/status`;
        for (const r of server.requestsTo("PATCH", path)) {
          const conditions = (r.json as { status?: { conditions?: { type?: string; message?: string }[] } })
            .status?.conditions;
          message = conditions?.find((c) => c.type === "DisruptionTarget")?.message ?? message;
        }
        return Promise.resolve(message);
      };

      return {
        port,
        addPods: (names) => addAll(names, []),
        addEndedPods: (names) => addAll(names, ["Succeeded", "Failed"]),
        settle,
        letGo: async (pod) => {
          // Only a pod being deleted: the kubelet ends a termination, it does not start one.
          const raw = server.pod(pod.namespace, pod.name);
          if (raw?.metadata.uid === pod.uid && raw.metadata.deletionTimestamp !== undefined)
            server.finishDeletion(pod.namespace, pod.name);
          await settle();
        },
        comebackMs: 200,
        // What the kubelet's eviction writes: the DisruptionTarget condition, PATCHed with its message
        // (through the Eviction API the server writes its own).
        ...(mode !== "eviction-api" ? { statusMessage } : {}),
        // The pod's whole object as the API has it: a status patch, a deletion or an eviction changes it.
        status: (pod) => Promise.resolve(structuredClone(server.pod(pod.namespace, pod.name))),
        protect: (pod) => {
          server.addPodDisruptionBudget({
            name: `guard-${pod.name}`,
            namespace: pod.namespace,
            matchLabels: { guard: pod.name },
            maxUnavailable: 0,
          });
          return Promise.resolve();
        },
        recentLog: () => log.text(),
        close: async () => {
          background.abort();
          await watching;
          await h.close();
        },
      };
    },
  });
}
