// nodeLocalCapabilities: what `watch --stats cgroups` adds to /status, in order.
import assert from "node:assert/strict";
import { test } from "node:test";
import { NOT_ARMED } from "../node-view/wake-capability.js";
import { nodeLocalCapabilities } from "./node-local-capabilities.js";

test("wake sources, the thread's priority, the refused sources, then the OOM kill count from its file", () => {
  const lines = nodeLocalCapabilities({
    wakeSources: ["PSI trigger"],
    threadPriority: "nice -5",
    notArmed: ["memory.events: EACCES"],
    cgroupApi: "v1",
    oomKillScanMs: 1000,
  });
  assert.equal(lines.length, 4);
  assert.deepEqual(lines.slice(0, 2), ["PSI trigger", "nice -5"]);
  assert.ok(lines[2]?.startsWith(`${NOT_ARMED}memory.events: EACCES`));
  assert.equal(
    lines[3],
    "kernel OOM kills counted per container from the kubelet's cgroups every 1 s (memory.oom_control oom_kill)",
  );
  const v2 = nodeLocalCapabilities({
    wakeSources: [],
    threadPriority: "nice -5",
    notArmed: [],
    cgroupApi: "v2",
    oomKillScanMs: 1000,
  });
  assert.match(v2.at(-1) ?? "", /\(memory\.events oom_kill\)$/);
});
