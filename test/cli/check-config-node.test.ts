/**
 * `evictd check-config --node FILE` end to end: an `evictd run` node file is checked as `run` reads
 * it (every problem at once, each with file:line:column, field and value; exit 2 on errors), its
 * own thresholds and the node's capacity and allocatable are printed, the kubelet fields run does
 * not honour are named, and nothing is started: no directory created, no port bound, no cgroup.
 * A node file given to plain `check-config` is recognised and sent to `--node`, not read as a
 * KubeletConfiguration of defaults.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { locateOwnCgroups } from "../../src/linux/cgroups/detect-cgroups.js";
import {
  CLI_SKIP,
  assertInputError,
  assertNoCrash,
  isWarningLine,
  runEvictd,
  scratchDir,
  stderrLines,
} from "./evictd-cli.js";

/** The node file the fault report used: a run node file with evictionHard 200Mi and maxPods. */
function nodeFile(o: { name: string; listen: string; extra?: string; config?: string }): string {
  return `name: ${o.name}
capacity: {memory: 1Gi, pids: 1024}
systemReserved: {memory: 64Mi, pids: 24}
stateDir: ./state
manifestDir: ./pods
config:
${
  o.config ??
  `  evictionHard: {memory.available: 200Mi}
  mergeDefaultEvictionSettings: true
  maxPods: 20`
}
housekeepingInterval: 2s
listen: ${o.listen}
${o.extra ?? ""}`;
}

describe("evictd check-config --node", { skip: CLI_SKIP }, () => {
  const scratch = scratchDir("check-node");
  let held: Server | undefined;
  let port = 0;

  before(async () => {
    // A port this test holds: a check that tried to bind it would fail.
    held = createServer();
    await new Promise<void>((resolve) => held?.listen(0, "127.0.0.1", resolve));
    const address = held.address();
    assert.ok(address !== null && typeof address === "object");
    port = address.port;
  });
  after(async () => {
    await new Promise((resolve) => held?.close(resolve));
    scratch.cleanup();
  });

  test("prints the node file's thresholds (200Mi, not the kubelet's 100Mi), capacity and allocatable as run computes them", () => {
    const file = scratch.write("node.yaml", nodeFile({ name: "checked", listen: `127.0.0.1:${port}` }));
    const r = runEvictd(["check-config", "--node", file, "--output", "json"]);
    assert.equal(r.status, 0, r.stderr);
    assertNoCrash(r);
    assert.deepEqual(stderrLines(r), []);
    const out = JSON.parse(r.stdout) as {
      node: Record<string, unknown>;
      thresholds: { signal: string; value: string }[];
      kernelMemcgNotification?: boolean;
    };
    // run's wake-ups are the node file's notifications, shown with the node.
    assert.equal(out.kernelMemcgNotification, undefined);
    assert.deepEqual(
      out.thresholds.map((t) => `${t.signal}<${t.value}`),
      [
        "memory.available<200Mi",
        "nodefs.available<10%",
        "nodefs.inodesFree<5%",
        "imagefs.available<15%",
        "imagefs.inodesFree<5%",
        "allocatableMemory.available<200Mi",
      ],
    );
    assert.deepEqual(out.node, {
      name: "checked",
      capacity: { memory: "1Gi", pids: "1024" },
      systemReserved: { memory: "64Mi", pids: "24" },
      kubeReserved: {},
      // 1Gi − 64Mi; 1024 − 24 PIDs.
      podsCgroup: { memory: "960Mi", pids: "1000" },
      // The pods cgroup less the hard memory.available threshold; maxPods from the config.
      allocatable: { memory: "760Mi", pods: 20 },
      stateDir: join(scratch.dir, "state"),
      manifestDir: join(scratch.dir, "pods"),
      listen: `127.0.0.1:${port}`,
      housekeepingInterval: "2s",
      notifications: true,
    });

    const text = runEvictd(["check-config", "--node", file]);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /^ {2}memory\.available < 200Mi {2}hard$/m);
    assert.match(text.stdout, /allocatable: memory 760Mi .*pods 20 \(maxPods\)/);
    assert.doesNotMatch(text.stdout, /100Mi/);
  });

  test("starts nothing: no state or manifest directory created, the listen port left alone, no cgroup", () => {
    const file = scratch.write(
      "untouched.yaml",
      nodeFile({ name: "untouched-check", listen: `127.0.0.1:${port}` }).replace(
        "stateDir: ./state",
        "stateDir: ./never/state",
      ),
    );
    const r = runEvictd(["check-config", "--node", file]);
    assert.equal(r.status, 0, `a check that bound the port or needed the directories fails:\n${r.stderr}`);
    assert.equal(existsSync(join(scratch.dir, "never")), false, "stateDir was created");
    assert.equal(existsSync(join(scratch.dir, "pods")), false, "manifestDir was created");
    const own = locateOwnCgroups();
    for (const dir of [own.memory?.dir, own.pids?.dir, own.unified?.dir])
      if (dir !== undefined)
        assert.equal(existsSync(join(dir, "evictd-untouched-check")), false, `a node cgroup under ${dir}`);
  });

  test("every problem at once, each with file:line:column, field and value, exit 2; the config file's too", () => {
    const kubelet = scratch.write(
      "kubelet.yaml",
      "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: -3\nevictionHard: {memory.available: 1x}\n",
    );
    const file = scratch.write(
      "broken.yaml",
      nodeFile({ name: "broken", listen: "127.0.0.1:99999", config: "" })
        .replace("config:\n\n", `config: ${kubelet}\n`)
        .replace("housekeepingInterval: 2s", "housekeepingInterval: 1000000h")
        .replace("capacity: {memory: 1Gi, pids: 1024}", "capacity: {memory: lots, pids: 1024}"),
    );
    const r = runEvictd(["check-config", "--node", file]);
    const errors = assertInputError(r, [
      { path: "capacity.memory", mentions: ['"lots"'], at: "2:12" },
      { path: "housekeepingInterval", mentions: ['"1000000h"', "596h31m23.647s"], at: "7:1" },
      { path: "listen", mentions: ["99999"], at: "8:1" },
      { path: 'config.evictionHard["memory.available"]', mentions: ['"1x"'], at: "4:16" },
      { path: "config.maxPods", mentions: ["-3", "must not be a negative number"], at: "3:1" },
    ]);
    for (const line of errors.slice(0, 3)) assert.ok(line.startsWith(`${file}:`), line);
    for (const line of errors.slice(3)) assert.ok(line.startsWith(`${kubelet}:`), line);
  });

  test("each kubelet field run does not honour gets one warning naming it; the fields run honours none", () => {
    const file = scratch.write(
      "copied.yaml",
      nodeFile({
        name: "copied",
        listen: "127.0.0.1:0",
        config: `  evictionHard: {memory.available: 200Mi}
  mergeDefaultEvictionSettings: true
  evictionSoft: {memory.available: 300Mi}
  evictionSoftGracePeriod: {memory.available: 1m}
  maxPods: 110
  cgroupDriver: systemd
  systemReserved: {memory: 1Gi}
  staticPodPath: /etc/kubernetes/manifests
  podPidsLimit: 4096`,
      }),
    );
    const r = runEvictd(["check-config", "--node", file]);
    assert.equal(r.status, 0, r.stderr);
    const warnings = stderrLines(r).filter(isWarningLine);
    const notHonoured = warnings.filter((l) => l.includes("is not honoured by evictd run"));
    assert.deepEqual(
      notHonoured.map((l) => /: warning: (config\.\w+): /.exec(l)?.[1]),
      ["config.cgroupDriver", "config.systemReserved", "config.staticPodPath", "config.podPidsLimit"],
    );
    assert.ok(
      notHonoured.every((l) => l.startsWith(`${file}:`)),
      notHonoured.join("\n"),
    );
    assert.ok(notHonoured[1]?.includes("the node file's top level"), notHonoured[1]);
    assert.equal(warnings.length, notHonoured.length, warnings.join("\n"));
  });

  test("--node takes no KubeletConfiguration file or flags: exit 2 saying so", () => {
    const file = scratch.write("plain.yaml", nodeFile({ name: "plain", listen: "127.0.0.1:0" }));
    const r = runEvictd(["check-config", "--node", file, "--", "--eviction-hard=memory.available<1Gi"]);
    assertInputError(r, [{ path: "--node", mentions: ["--eviction-hard=memory.available<1Gi"] }]);
  });
});

describe("evictd check-config FILE given a node file", { skip: CLI_SKIP }, () => {
  const scratch = scratchDir("check-node-detect");
  after(() => scratch.cleanup());

  test("says it looks like a node file and suggests --node: exit 2, no kubelet defaults, no unknown-field noise", () => {
    const bare = scratch.write("node.yaml", nodeFile({ name: "bare", listen: "127.0.0.1:0" }));
    const typed = scratch.write(
      "typed.yaml",
      `kind: EvictdNode\n${nodeFile({ name: "typed", listen: "127.0.0.1:0" })}`,
    );
    for (const [file, evidence] of [
      [bare, "node file fields capacity, stateDir, manifestDir"],
      [typed, "kind EvictdNode"],
    ] as const) {
      const r = runEvictd(["check-config", file]);
      const [line] = assertInputError(r, [
        { path: "config", mentions: [evidence, `evictd check-config --node ${file}`] },
      ]);
      assert.ok(line?.startsWith(`${file}: `), line);
      assert.deepEqual(stderrLines(r).filter(isWarningLine), [], "no unknown-field warnings");
    }
  });

  test("a KubeletConfiguration is still read as one", () => {
    const file = scratch.write(
      "kubelet.yaml",
      "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nevictionHard: {memory.available: 300Mi}\nmergeDefaultEvictionSettings: true\n",
    );
    const r = runEvictd(["check-config", file]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /memory\.available < 300Mi/);
  });
});
