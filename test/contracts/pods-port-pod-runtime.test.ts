/**
 * The PodsPort contract against the process pod runtime of `evictd run` (what kills when the loop
 * runs on the same thread as the pods): in a cgroup node of its own, and without cgroups.
 */
import { podsPortContract, type PodsPortImplementation } from "./pods-port.contract.js";
import { BACKOFF, cgroupSkip, processSkip, RealPodsNode } from "./real-pods.js";

function runtime(cgroups: boolean): PodsPortImplementation {
  return {
    name: `ProcessPodRuntime ${cgroups ? "in cgroups" : "without cgroups"}`,
    skip: cgroups ? cgroupSkip : processSkip,
    capabilities: {
      kills: true,
      restate: true,
      preflight: "absent",
      // No container images: image GC frees nothing.
      reclaim: { containers: true, images: false },
    },
    async make() {
      const node = await RealPodsNode.start({ cgroups });
      return {
        port: node.runtime,
        addPods: (names, options) => node.addPods(names, options?.lingering === true),
        addEndedPods: (names) => node.addEndedPods(names),
        settle: () => node.runtime.flush(),
        letGo: () => Promise.resolve(),
        comebackMs: 2 * BACKOFF.maxMs,
        pids: (pod) => node.pids(pod),
        statusMessage: (pod) => Promise.resolve(node.statusMessage(pod)),
        recentLog: () => node.log.text(),
        close: () => node.close(),
      };
    },
  };
}

podsPortContract(runtime(true));
podsPortContract(runtime(false));
