/**
 * destroyNode against the real kernel with processes that do not simply vanish at SIGKILL: a
 * zombie whose parent does not reap it, a process that cannot die (frozen, state D), and processes
 * that leave one after another for longer than the teardown's patience.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AdapterError } from "../../errors.js";
import { scaled } from "../../testing/slowdown.js";
import { parseMountinfo, readProcStatNow } from "../procfs.js";
import type { CgroupDriver, ContainerCgroup } from "./cgroup-driver.js";
import { createCgroupDriver } from "./create-cgroup-driver.js";
import { detectOwnCgroups } from "./detect-cgroups.js";
import { spawnInCgroups } from "./spawn-in-cgroup.js";

const detection = process.platform === "linux" ? await detectOwnCgroups() : undefined;
const choice = detection === undefined ? undefined : createCgroupDriver(detection);
const skip = choice === undefined ? "not Linux" : choice.ok ? false : choice.reason;
if (skip !== false) console.error(`# live destroyNode tests skipped: ${skip}`);

/** This process's directory in a cgroup v1 freezer hierarchy, or why there is none to use. */
function ownFreezerDir(): string | { readonly none: string } {
  const mount = parseMountinfo(readFileSync("/proc/self/mountinfo", "utf8")).find(
    (m) => m.fsType === "cgroup" && m.superOptions.includes("freezer"),
  );
  if (mount === undefined || mount.readOnly)
    return { none: "no writable cgroup v1 freezer (on cgroup v2, SIGKILL ends even a frozen process)" };
  const line = readFileSync("/proc/self/cgroup", "utf8")
    .split("\n")
    .find((l) => l.split(":")[1]?.split(",").includes("freezer"));
  const own = line?.slice(line.indexOf(":", line.indexOf(":") + 1) + 1);
  if (own === undefined || mount.root !== "/")
    return { none: "this process's freezer cgroup is not visible" };
  return join(mount.mountPoint, own);
}
const freezer = process.platform === "linux" ? ownFreezerDir() : { none: "not Linux" };
const freezerSkip = skip !== false ? skip : typeof freezer === "string" ? false : freezer.none;

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const children: ChildProcess[] = [];
const frozen: string[] = [];

/** The state letter of a process, or undefined when it is gone. */
const stateOf = (pid: number): string | undefined => readProcStatNow(pid)?.state;

/** Resolves once `check` holds, polling; fails after `ms`. */
async function until(what: string, check: () => boolean, ms = scaled(10_000)): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Starts `sleep 600` in a container and resolves with its pid once it runs there. */
async function sleeper(driver: CgroupDriver, container: ContainerCgroup): Promise<number> {
  const child = spawnInCgroups(["sleep", "600"], env, "/", driver.procFiles(container), "ignore");
  children.push(child);
  const pid = child.pid ?? -1;
  await until(`pid ${pid} in ${container.path}`, () => readCmdlineOf(pid) === "sleep 600");
  return pid;
}

function readCmdlineOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return undefined;
  }
}

/** Moves a process into a freezer cgroup of its own (beside the node) and freezes it. */
async function freeze(dir: string, pid: number): Promise<string> {
  const cgroup = join(dir, `evictd-freeze-${process.pid}-${pid}`);
  mkdirSync(cgroup);
  frozen.push(cgroup);
  writeFileSync(join(cgroup, "cgroup.procs"), String(pid));
  writeFileSync(join(cgroup, "freezer.state"), "FROZEN");
  await until(
    `${cgroup} frozen`,
    () => readFileSync(join(cgroup, "freezer.state"), "utf8").trim() === "FROZEN",
  );
  return cgroup;
}

const thaw = (cgroup: string): void => writeFileSync(join(cgroup, "freezer.state"), "THAWED");

describe("destroyNode, live, with processes slow or unable to die", { skip }, () => {
  let driver: CgroupDriver;
  const name = `evictd-destroy-${process.pid}`;

  before(() => {
    assert.ok(choice?.ok);
    driver = choice.driver;
  });

  after(async () => {
    for (const cgroup of frozen) if (existsSync(cgroup)) thaw(cgroup);
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await driver?.destroyNode({ name });
    for (const cgroup of frozen) {
      await until(
        `${cgroup} empty`,
        () => !existsSync(cgroup) || readFileSync(join(cgroup, "cgroup.procs"), "utf8") === "",
      );
      if (existsSync(cgroup)) rmdirSync(cgroup);
    }
  });

  test("a killed process whose parent does not reap it is a zombie the kernel no longer counts: teardown ends", async () => {
    await driver.createNode({ name });
    const container = await driver.createContainer(await driver.createPod("zombie", "BestEffort"), "c");
    // The parent stays outside the node, in `read`, where the shell does not reap its children.
    const parent = spawn(
      "/bin/sh",
      [
        "-c",
        '"$@" & echo $!; read line; wait',
        "parent",
        "/bin/sh",
        "-c",
        'for f in "$@"; do echo $$ > "$f"; done; exec sleep 600',
        "child",
        ...driver.procFiles(container),
      ],
      { env, stdio: ["pipe", "pipe", "inherit"] },
    );
    children.push(parent);
    const pid = await new Promise<number>((resolve) =>
      parent.stdout?.once("data", (d: Buffer) => resolve(Number(String(d).trim()))),
    );
    await until(`pid ${pid} in the node`, () => readCmdlineOf(pid) === "sleep 600");
    assert.deepEqual(await driver.procs(container), [pid]);
    const dir = driver.directories(container).memory;

    const report = await driver.destroyNode({ timeoutMs: scaled(5000) });
    assert.deepEqual(report.killed, [pid]);
    assert.equal(stateOf(pid), "Z", "still a zombie: its parent has not waited for it");
    assert.equal(existsSync(dir), false, "the node is gone all the same");
    parent.stdin?.end("reap\n");
    await until(`pid ${pid} reaped`, () => stateOf(pid) === undefined);
  });

  test(
    "a process that cannot die (frozen: state D) fails teardown once nothing has moved for timeoutMs, named with its state",
    { skip: freezerSkip },
    async () => {
      assert.ok(typeof freezer === "string");
      await driver.createNode({ name });
      const container = await driver.createContainer(await driver.createPod("stuck", "BestEffort"), "c");
      const pid = await sleeper(driver, container);
      const cgroup = await freeze(freezer, pid);
      await assert.rejects(driver.destroyNode({ name, timeoutMs: scaled(300) }), (e: unknown) => {
        assert.ok(e instanceof AdapterError && e.code === "cgroup-not-empty", String(e));
        assert.ok(e.message.includes(`${pid} (state D: sleep 600)`), e.message);
        assert.match(e.hint ?? "", /uninterruptible sleep \(state D\)/);
        return true;
      });
      // Its SIGKILL is pending: thawed, it dies, and the teardown goes through.
      thaw(cgroup);
      await driver.destroyNode({ name });
      assert.equal(driver.current, undefined);
      await until(`pid ${pid} gone`, () => stateOf(pid) === undefined || stateOf(pid) === "Z");
    },
  );

  test(
    "processes that leave one after another for longer than timeoutMs do not fail teardown: each exit is progress",
    { skip: freezerSkip },
    async () => {
      assert.ok(typeof freezer === "string");
      await driver.createNode({ name });
      const container = await driver.createContainer(await driver.createPod("slow", "BestEffort"), "c");
      const cgroups: string[] = [];
      for (let i = 0; i < 8; i++) cgroups.push(await freeze(freezer, await sleeper(driver, container)));
      const patience = scaled(400);
      const start = Date.now();
      const teardown = driver.destroyNode({ timeoutMs: patience });
      // Each thawed process carries out its pending SIGKILL; the next one follows well within the patience.
      for (const cgroup of cgroups) {
        await new Promise((resolve) => setTimeout(resolve, patience / 4));
        thaw(cgroup);
      }
      const report = await teardown;
      assert.equal(report.killed.length, 8);
      assert.ok(
        Date.now() - start > patience,
        `the teardown took ${Date.now() - start} ms, longer than timeoutMs`,
      );
      assert.equal(driver.current, undefined);
    },
  );
});
