/**
 * The PodsPort contract against the process pod runtime of `evictd run` (what kills when the loop
 * runs on the same thread as the pods): in a cgroup node of its own, and without cgroups.
 */
import { podsPortContract, type PodsPortImplementation } from "./pods-port.contract.js";
import { cgroupSkip, processSkip, RealPodsNode } from "./real-pods.js";

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
      return node.subject(node.runtime);
    },
  };
}

podsPortContract(runtime(true));
podsPortContract(runtime(false));
