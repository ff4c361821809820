/**
 * The PodsPort contract against `evictd run --dry-run`'s pods port: the process runtime's pods
 * (real ones, without cgroups), every kill logged instead of done.
 */
import { DryRunPods } from "../../src/runtime/dry-run-pods.js";
import { podsPortContract } from "./pods-port.contract.js";
import { processSkip, RealPodsNode, systemClock } from "./real-pods.js";

podsPortContract({
  name: "DryRunPods over the process runtime",
  skip: processSkip,
  capabilities: {
    kills: false,
    restate: false,
    preflight: "absent",
    reclaim: { containers: false, images: false },
  },
  async make() {
    const node = await RealPodsNode.start({ cgroups: false });
    return node.subject(new DryRunPods({ pods: node.runtime, clock: systemClock, logger: node.log }));
  },
});
