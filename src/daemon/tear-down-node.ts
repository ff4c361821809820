/**
 * The node torn down as `evictd run --cleanup-on-exit` (and the demo) leaves it: every pod killed
 * and its resources released, where otherwise the pods keep running for the next daemon to adopt.
 */
import type { CgroupDriver } from "../linux/cgroups/cgroup-driver.js";
import type { GivenPodStatus, ProcessPodRuntime } from "../runtime/pod-runtime.js";

/** The status every pod still running is left with. */
const NODE_SHUTDOWN: GivenPodStatus = {
  phase: "Failed",
  reason: "NodeShutdown",
  message: "The node is shutting down",
  conditions: [],
};

/** Kills every pod (with cgroups: the node's subtree at once, removed) and releases what they held. */
export async function tearDownNode(
  runtime: Pick<ProcessPodRuntime, "stopRestarts" | "activePods" | "kill" | "releaseAll">,
  driver: CgroupDriver | undefined,
): Promise<void> {
  if (driver !== undefined) {
    // The subtree is killed from outside the runtime: its containers must not be restarted.
    runtime.stopRestarts();
    await driver.destroyNode();
  } else {
    // Without cgroups there is no subtree to kill at once: stop every pod's process group.
    const kills = await Promise.all(runtime.activePods().map((p) => runtime.kill(p, 1, NODE_SHUTDOWN)));
    await Promise.all(kills.map((k) => k.done));
  }
  await runtime.releaseAll();
}
