/**
 * `evictd watch --stats cgroups` end to end on a kubelet-shaped node (harness/kubelet-node.ts):
 * the kubelet's cgroup tree for each cgroup driver built for real under this process's cgroup, real
 * processes in its container cgroups, and the fake API server serving those pods (same UIDs and
 * container ids) and a configz naming the driver. A Burstable pod ramps memory at 1 GiB/s past
 * memory.available 100Mi of a 512Mi node; the loop runs every 10 s, so only the kernel's wake can
 * evict in time. Checked: the Eviction API call names the ramping pod and no other pod (also while
 * it lingers in its grace period, its memory still held), it came from a kernel notification, the
 * kernel OOM-killed nothing, and /status says where memory came from.
 *
 * How fast (crossing → Eviction API call, 20 trials, next to the Summary-polling mode) is measured
 * by `npm run bench:reaction -- --mode cluster`, not asserted here.
 */
import assert from "node:assert/strict";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { rampPodCommand, parseRampNotes } from "../../bench/ramp-pod.js";
import {
  isDryRun,
  startFakeApiServer,
  type RecordedRequest,
} from "../harness/fake-api-server/fake-api-server.js";
import {
  apiPod,
  clusterDataOptions,
  startResidents,
  writeClusterData,
} from "../harness/kubelet-node-cluster.js";
import {
  containerId,
  KubeletNode,
  kubeletNodeUnavailable,
  type KubeletDriver,
} from "../harness/kubelet-node.js";
import { EVICTD_BIN, REPO_ROOT, scaled, sleep, SLOWDOWN, waitUntil } from "../harness/node-harness.js";

const MiB = 1024 * 1024;
const CAPACITY = 512 * MiB;
const THRESHOLD = 100 * MiB;
const skip = kubeletNodeUnavailable();
if (skip !== false) console.error(`# watch --stats cgroups e2e skipped: ${skip}`);

/** The part of `evictdAdditions` (the node's memory three ways) checked here. */
interface MemoryViewsJson {
  note: string;
  capacity: string;
  kubelet: { formula: string };
  kernelAvailable?: { available: string };
  withKernelMemory?: { alreadyInKubeletFigure: boolean };
}

function assertMemoryViews(views: MemoryViewsJson | undefined, api: "v1" | "v2"): void {
  assert.ok(views !== undefined, "memory.available carries evictd's additions");
  assert.match(views.note, /^evictd's additions .*never used for decisions$/);
  assert.equal(views.capacity, "512Mi");
  const usage = api === "v2" ? "memory.current" : "memory.usage_in_bytes";
  assert.equal(views.kubelet.formula, `capacity − (${usage} − inactive_file)`);
  assert.ok(views.kernelAvailable !== undefined, "MemAvailable");
  if (views.withKernelMemory !== undefined) assert.equal(views.withKernelMemory.alreadyInKubeletFigure, true);
}

const temps: string[] = [];
after(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

async function scenario(driver: KubeletDriver): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `evictd-node-local-${driver}-`));
  temps.push(dir);
  const nodeName = `kubelet-node-${driver}`;
  const node = new KubeletNode(driver, CAPACITY);
  let watch: ChildProcess | undefined;
  const server = { current: undefined as Awaited<ReturnType<typeof startFakeApiServer>> | undefined };
  try {
    // Residents: Guaranteed, BestEffort and a critical pod, a few MiB each; then the ramp pod.
    const residents = startResidents(node, nodeName);
    const notes = path.join(dir, "ramp.notes");
    const rampId = containerId();
    const rampUid = "6f1d3c2a-8b7e-4d5f-9a0b-1c2d3e4f5a6b";
    const ramp = apiPod(nodeName, {
      name: "ramp",
      uid: rampUid,
      qos: "Burstable",
      containers: [{ name: "ramp", id: rampId }],
      terminationGracePeriodSeconds: 5,
    });
    writeClusterData(dir, { nodeName, driver, pods: [...residents, ramp] });
    const s = await startFakeApiServer(clusterDataOptions(dir, nodeName));
    server.current = s;
    const evictions: RecordedRequest[] = [];
    s.onRequest = (r) => {
      // The real evictions; the preflight's dry runs (on by default with --use-eviction-api) aside.
      if (r.method === "POST" && r.path.endsWith("/eviction") && !isDryRun(r)) evictions.push(r);
    };
    const kubeconfig = await s.writeKubeconfig(path.join(dir, "kubeconfig"));
    const decisionLog = path.join(dir, "decisions.jsonl");
    watch = spawn(
      process.execPath,
      [
        EVICTD_BIN,
        "watch",
        "--node",
        nodeName,
        "--kubeconfig",
        kubeconfig,
        "--enforce",
        "--use-eviction-api",
        "--stats",
        "cgroups",
        "--cgroupfs",
        node.cgroupfs,
        "--node-cgroup",
        node.nodeCgroup,
        "--interval",
        "10s",
        "--listen",
        "127.0.0.1:0",
        "--decision-log",
        decisionLog,
        "--record",
        path.join(dir, "trace.jsonl"),
      ],
      { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    watch.stdout?.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    watch.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const url = await waitUntil(
      "the evictd watching line",
      () => {
        const line = stdout.split("\n").find((l) => l.includes("evictd watching node"));
        return line === undefined ? undefined : (JSON.parse(line) as { url: string }).url;
      },
      15_000,
      () => `\n${stdout}${stderr}`,
      25,
    );
    // The kubelet's configuration is read once at start: the thresholds, the kernel wakes armed on
    // them and the cgroup driver all come from that one read.
    const configzReads = (): number => s.requests.filter((r) => r.path.endsWith("/configz")).length;
    assert.equal(configzReads(), 1, "watch reads configz once");
    const status = (await (await fetch(`${url}/status`)).json()) as {
      capabilities: string[];
      signals: { signal: string; evictdAdditions?: MemoryViewsJson }[];
    };
    // memory.available three ways, as evictd's additions: the node is a cgroup of its own here,
    // so its usage counts its kernel memory already, and the view with kernel memory says so.
    assertMemoryViews(status.signals.find((x) => x.signal === "memory.available")?.evictdAdditions, node.api);
    assert.ok(
      status.capabilities.some((c) => c.includes("the kubelet's cgroups") && c.includes(`${driver} driver`)),
      status.capabilities.join("\n"),
    );
    assert.ok(
      status.capabilities.some((c) => c.startsWith("kernel notifications on the kubelet's cgroups")),
      status.capabilities.join("\n"),
    );
    assert.ok(!status.capabilities.some((c) => c.startsWith("not armed")), status.capabilities.join("\n"));
    // Root here: the event loop that turns a wake into the Eviction API call runs at nice -20, as
    // the kernel says of the process's main thread (its task id is the pid).
    assert.ok(
      status.capabilities.includes("the eviction loop's thread (watch's event loop) runs at nice -20"),
      status.capabilities.join("\n"),
    );
    // The trace's header says which cgroup API watch found the kubelet's cgroups on.
    const header = JSON.parse(readFileSync(path.join(dir, "trace.jsonl"), "utf8").split("\n")[0] ?? "{}") as {
      environment?: { cgroupVersion?: number; kubeletVersion?: string };
    };
    assert.equal(header.environment?.cgroupVersion, node.api === "v2" ? 2 : 1);
    assert.equal(header.environment?.kubeletVersion, "v1.35.0");

    const pid = watch.pid;
    assert.ok(pid !== undefined, "watch has a pid");
    assert.equal(os.getPriority(pid), -20);

    // explain reads the same cgroups, says so, and sees the node (512Mi), not the Summary's machine;
    // it too reads configz once, for its thresholds and the cgroup driver both.
    const explained = await promisify(execFile)(
      process.execPath,
      [
        EVICTD_BIN,
        "explain",
        "--node",
        nodeName,
        "--kubeconfig",
        kubeconfig,
        "--stats",
        "cgroups",
        "--cgroupfs",
        node.cgroupfs,
        "--node-cgroup",
        node.nodeCgroup,
        "-o",
        "json",
      ],
      { cwd: REPO_ROOT },
    );
    const view = JSON.parse(explained.stdout) as {
      source: string;
      signals: { signal: string; capacity?: string; evictdAdditions?: MemoryViewsJson }[];
    };
    assert.match(view.source, /^memory from the kubelet's cgroups .* read now; the rest from /);
    assert.equal(configzReads(), 2, "explain reads configz once");
    assert.equal(view.signals.find((x) => x.signal === "memory.available")?.capacity, "512Mi");
    assertMemoryViews(view.signals.find((x) => x.signal === "memory.available")?.evictdAdditions, node.api);

    // The ramp: to 32 MiB under the threshold at once, then 1 GiB/s, 1 MiB at a time.
    const oomBefore = node.oomKills();
    const rampPod = node.addPod({
      uid: rampUid,
      qos: "Burstable",
      containers: [
        {
          id: rampId,
          argv: rampPodCommand({
            nodeCgroupDir: node.nodeDir,
            api: node.api,
            capacityBytes: CAPACITY,
            thresholdBytes: THRESHOLD,
            // 1 GiB/s here. The emulated v2 guest slows evictd more than a ramp that is mostly
            // kernel work: there the 100 MiB headroom is given 4× the slowdown (behaviour, not timing).
            mibPerSecond: SLOWDOWN > 1 ? Math.round(1024 / (4 * SLOWDOWN)) : 1024,
            marginBytes: 32 * MiB,
            lingerSeconds: 1,
            outFile: notes,
            touch: "populate",
          }),
        },
      ],
    });
    const eviction = await waitUntil(
      "an Eviction API call",
      () => evictions[0],
      20_000,
      () => `\n${stdout.split("\n").slice(-10).join("\n")}${stderr}`,
      5,
    );
    // The kubelet's part: stop the container (SIGTERM; it lingers 1 s holding its memory), then
    // the pod object goes.
    await node.removePod(rampPod.uid, "SIGTERM");
    s.finishDeletion("default", "ramp");
    await sleep(scaled(1500));

    assert.equal(eviction.path, "/api/v1/namespaces/default/pods/ramp/eviction");
    assert.deepEqual(
      evictions.map((e) => e.path),
      [eviction.path],
      "only the ramping pod, once, also while it held its memory in its grace period",
    );
    assert.equal(node.oomKills() - oomBefore, 0, "the kernel OOM killer never ran");
    const ramped = parseRampNotes(readFileSync(notes, "utf8"));
    assert.ok(ramped.crossAt !== undefined, "the ramp crossed the threshold");
    const records = readFileSync(decisionLog, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map(
        (l) => JSON.parse(l) as { wake: { reason: string; notification: boolean }; evictions?: unknown[] },
      );
    const evicting = records.find((r) => (r.evictions ?? []).length > 0);
    assert.ok(evicting?.wake.notification, `woken by ${evicting?.wake.reason}, not by the kernel`);
    console.error(
      `# ${driver} (cgroup ${node.api}): crossing → Eviction API call ${(eviction.receivedAt - ramped.crossAt).toFixed(1)} ms, woken by ${evicting.wake.reason}`,
    );
    watch.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => watch?.once("exit", (c) => resolve(c)));
    assert.equal(code, 0, stderr);
    watch = undefined;

    // Every step line of the trace carries the node's memory three ways, read after the step (its
    // own time), exact; the replay takes them in and its report draws them as evictd's addition.
    const trace = path.join(dir, "trace.jsonl");
    const steps = readFileSync(trace, "utf8")
      .split("\n")
      .slice(1)
      .filter((l) => l !== "")
      .map(
        (l) =>
          JSON.parse(l) as {
            nodeMemoryViews?: {
              at: string;
              capacityBytes: number;
              kubelet: { usageFrom: string };
              kernelAvailable?: unknown;
            };
          },
      );
    assert.ok(steps.length > 0, "the trace has steps");
    for (const s of steps) {
      const v = s.nodeMemoryViews;
      assert.ok(v !== undefined, "each step carries nodeMemoryViews");
      assert.match(v.at, /^[\d.hms]+$/);
      assert.equal(v.capacityBytes, CAPACITY);
      assert.equal(v.kubelet.usageFrom, node.api === "v2" ? "memory.current" : "memory.usage_in_bytes");
      assert.ok(v.kernelAvailable !== undefined, "MemAvailable");
    }
    const report = path.join(dir, "report.html");
    await promisify(execFile)(process.execPath, [EVICTD_BIN, "replay", trace, "--report", report], {
      cwd: REPO_ROOT,
    });
    assert.match(
      readFileSync(report, "utf8"),
      /evictd's addition, not used for eviction: the node's memory three ways/,
    );
  } finally {
    watch?.kill("SIGKILL");
    await server.current?.close();
    await node.destroy();
  }
}

describe("evictd watch --stats cgroups on a kubelet-shaped node", { skip }, () => {
  for (const driver of ["cgroupfs", "systemd"] as const)
    test(
      `${driver} driver: a pod ramping at 1 GiB/s is evicted through the API on a kernel wake, alone, before the OOM killer`,
      { timeout: scaled(90_000) },
      () => scenario(driver),
    );
});
