/** Detection over recorded /proc/self/cgroup and mountinfo files of typical hosts, the driver it leads to, and detection on this host. */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { CgroupV1Driver } from "./cgroup-v1-driver.js";
import { CgroupV2Driver } from "./cgroup-v2-driver.js";
import { createCgroupDriver } from "./create-cgroup-driver.js";
import {
  detectCgroups,
  detectOwnCgroups,
  locateOwnCgroups,
  unifiedOwnDir,
  type DetectionInput,
} from "./detect-cgroups.js";

/** This machine: v1 controllers plus a cgroup2 mount at /sys/fs/cgroup/unified with only hugetlb. */
const HYBRID_MOUNTINFO = `22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`;
const HYBRID_CGROUP = `9:name=systemd:/
8:pids:/
4:memory:/process_api/ba6147399578d1c9c8b19d73a5445304
1:cpu:/
0::/
`;

/** A systemd host in unified mode, the daemon a service with Delegate=yes. */
const V2_MOUNTINFO = `24 30 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
33 24 0:28 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
`;
const V2_CGROUP = "0::/system.slice/evictd.service\n";

/** Docker on a v1 host without a cgroup namespace: the container's own subtree is bind-mounted read-only. */
const DOCKER_V1_MOUNTINFO = `700 699 0:60 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - tmpfs tmpfs rw,mode=755
705 700 0:32 /docker/0123abcd /sys/fs/cgroup/memory ro,nosuid,nodev,noexec,relatime master:15 - cgroup cgroup rw,memory
706 700 0:36 /docker/0123abcd /sys/fs/cgroup/pids ro,nosuid,nodev,noexec,relatime master:19 - cgroup cgroup rw,pids
`;
const DOCKER_V1_CGROUP = "8:pids:/docker/0123abcd\n4:memory:/docker/0123abcd\n";

const base = { euid: 0 } as const;

describe("detectCgroups", () => {
  test("this machine's layout: hybrid, memory and pids on v1, manageable with the v1 driver", () => {
    const d = detectCgroups({
      ...base,
      procSelfCgroup: HYBRID_CGROUP,
      mountinfo: HYBRID_MOUNTINFO,
      unifiedControllers: "hugetlb\n",
    });
    assert.equal(d.version, "hybrid");
    assert.deepEqual(d.memory, {
      api: "v1",
      mount: "/sys/fs/cgroup/memory",
      ownPath: "/process_api/ba6147399578d1c9c8b19d73a5445304",
      dir: "/sys/fs/cgroup/memory/process_api/ba6147399578d1c9c8b19d73a5445304",
      readOnly: false,
    });
    assert.deepEqual(d.pids, {
      api: "v1",
      mount: "/sys/fs/cgroup/pids",
      ownPath: "/",
      dir: "/sys/fs/cgroup/pids",
      readOnly: false,
    });
    assert.deepEqual(d.unified, {
      api: "v2",
      mount: "/sys/fs/cgroup/unified",
      ownPath: "/",
      dir: "/sys/fs/cgroup/unified",
      readOnly: false,
    });
    assert.deepEqual(d.canManage, { ok: true, api: "v1", limitations: [] });
  });

  test("unified mode: both controllers on v2 when delegated", () => {
    const d = detectCgroups({
      ...base,
      procSelfCgroup: V2_CGROUP,
      mountinfo: V2_MOUNTINFO,
      unifiedControllers: "cpuset cpu io memory hugetlb pids rdma misc\n",
    });
    assert.equal(d.version, "v2");
    assert.equal(d.memory?.dir, "/sys/fs/cgroup/system.slice/evictd.service");
    assert.equal(d.memory?.api, "v2");
    assert.deepEqual(d.pids, d.memory);
    assert.equal(d.canManage.ok, true);
    assert.ok(
      d.canManage.ok &&
        d.canManage.api === "v2" &&
        d.canManage.limitations.some((l) => l.includes("cgroup.event_control")),
    );
  });

  const refusals: { name: string; input: DetectionInput; reason: RegExp }[] = [
    {
      name: "v2 without memory delegated",
      input: {
        ...base,
        procSelfCgroup: V2_CGROUP,
        mountinfo: V2_MOUNTINFO,
        unifiedControllers: "cpu io pids\n",
      },
      reason: /memory controller is not delegated.*cpu io pids/,
    },
    {
      name: "v2 with nothing delegated",
      input: { ...base, procSelfCgroup: V2_CGROUP, mountinfo: V2_MOUNTINFO, unifiedControllers: "\n" },
      reason: /lists: nothing/,
    },
    {
      name: "a read-only mount (docker)",
      input: { ...base, procSelfCgroup: DOCKER_V1_CGROUP, mountinfo: DOCKER_V1_MOUNTINFO },
      reason: /\/sys\/fs\/cgroup\/memory is mounted read-only/,
    },
    {
      name: "not root",
      input: { euid: 1000, procSelfCgroup: HYBRID_CGROUP, mountinfo: HYBRID_MOUNTINFO },
      reason: /not writable by this process \(euid 1000\).*root/,
    },
    {
      name: "root but the directory is not writable",
      input: { ...base, procSelfCgroup: HYBRID_CGROUP, mountinfo: HYBRID_MOUNTINFO, writable: () => false },
      reason: /process_api\/ba6147399578d1c9c8b19d73a5445304 is not writable/,
    },
    {
      name: "no cgroup filesystem",
      input: { ...base, procSelfCgroup: "0::/\n", mountinfo: "27 1 254:0 / / rw - ext4 /dev/vda rw\n" },
      reason: /no cgroup filesystem is mounted/,
    },
    {
      name: "v1 without a memory hierarchy",
      input: {
        ...base,
        procSelfCgroup: "8:pids:/\n",
        mountinfo: "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n",
      },
      reason: /memory controller is not mounted/,
    },
    {
      name: "own cgroup outside the mounted subtree",
      input: {
        ...base,
        procSelfCgroup: "4:memory:/elsewhere\n",
        mountinfo: "35 31 0:32 /docker/abc /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n",
      },
      reason: /\/elsewhere is outside the part of the hierarchy mounted at \/sys\/fs\/cgroup\/memory/,
    },
  ];
  for (const r of refusals) {
    test(`refuses with a plain reason: ${r.name}`, () => {
      const verdict = detectCgroups(r.input).canManage;
      assert.equal(verdict.ok, false);
      assert.match(verdict.ok ? "" : verdict.reason, r.reason);
      const choice = createCgroupDriver(detectCgroups(r.input));
      assert.deepEqual(choice, { ok: false, reason: verdict.ok ? "" : verdict.reason });
    });
  }

  test("a container's own subtree mounted at the hierarchy root: ownPath is / relative to the mount", () => {
    const mountinfo = DOCKER_V1_MOUNTINFO.replaceAll(" ro,", " rw,");
    const d = detectCgroups({ ...base, procSelfCgroup: DOCKER_V1_CGROUP, mountinfo });
    assert.deepEqual(d.memory, {
      api: "v1",
      mount: "/sys/fs/cgroup/memory",
      ownPath: "/",
      dir: "/sys/fs/cgroup/memory",
      readOnly: false,
    });
    assert.equal(d.version, "v1");
    const nested = detectCgroups({ ...base, procSelfCgroup: "4:memory:/docker/0123abcd/inner\n", mountinfo });
    assert.equal(nested.memory?.dir, "/sys/fs/cgroup/memory/inner");
  });

  test("v1 without pids: manageable, with the limitation said", () => {
    const d = detectCgroups({
      ...base,
      procSelfCgroup: "4:memory:/a\n",
      mountinfo: "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n",
    });
    assert.equal(d.pids, undefined);
    assert.ok(
      d.canManage.ok && d.canManage.limitations.some((l) => l.includes("pids controller is not available")),
    );
    const choice = createCgroupDriver(d);
    assert.ok(choice.ok && choice.driver instanceof CgroupV1Driver && !choice.driver.hasPids);
  });

  test("controllers co-mounted (cpu,cpuacct style) and octal-escaped mount points", () => {
    const d = detectCgroups({
      ...base,
      procSelfCgroup: "5:memory,pids:/my service\n",
      mountinfo: "35 31 0:32 / /sys/fs/cgroup/memory\\040and\\040pids rw - cgroup cgroup rw,memory,pids\n",
    });
    assert.equal(d.memory?.dir, "/sys/fs/cgroup/memory and pids/my service");
    assert.equal(d.pids?.dir, d.memory?.dir);
  });

  test("hybrid with pids only on the unified hierarchy: memory on v1, pids unused", () => {
    const mountinfo = HYBRID_MOUNTINFO.replace(/^39 .*\n/m, "");
    const d = detectCgroups({
      ...base,
      procSelfCgroup: HYBRID_CGROUP.replace("8:pids:/\n", ""),
      mountinfo,
      unifiedControllers: "pids\n",
    });
    assert.equal(d.memory?.api, "v1");
    assert.equal(d.pids?.api, "v2");
    assert.ok(
      d.canManage.ok &&
        d.canManage.limitations.some((l) => l.includes("on the v2 hierarchy while memory is on v1")),
    );
    const choice = createCgroupDriver(d);
    assert.ok(choice.ok && !choice.driver.hasPids);
  });

  test("unifiedOwnDir points at the own cgroup2 directory, if any", () => {
    assert.equal(unifiedOwnDir(V2_CGROUP, V2_MOUNTINFO), "/sys/fs/cgroup/system.slice/evictd.service");
    assert.equal(unifiedOwnDir(HYBRID_CGROUP, HYBRID_MOUNTINFO), "/sys/fs/cgroup/unified");
    assert.equal(unifiedOwnDir("4:memory:/a\n", DOCKER_V1_MOUNTINFO), undefined);
  });

  test("createCgroupDriver picks the driver of the memory hierarchy", () => {
    const v1 = createCgroupDriver(
      detectCgroups({
        ...base,
        procSelfCgroup: HYBRID_CGROUP,
        mountinfo: HYBRID_MOUNTINFO,
        unifiedControllers: "hugetlb",
      }),
    );
    assert.ok(v1.ok && v1.driver instanceof CgroupV1Driver && v1.driver.hasPids && v1.driver.api === "v1");
    const v2 = createCgroupDriver(
      detectCgroups({
        ...base,
        procSelfCgroup: V2_CGROUP,
        mountinfo: V2_MOUNTINFO,
        unifiedControllers: "memory pids",
      }),
    );
    assert.ok(v2.ok && v2.driver instanceof CgroupV2Driver && v2.driver.hasPids && v2.driver.api === "v2");
    const v2NoPids = createCgroupDriver(
      detectCgroups({
        ...base,
        procSelfCgroup: V2_CGROUP,
        mountinfo: V2_MOUNTINFO,
        unifiedControllers: "memory",
      }),
    );
    assert.ok(v2NoPids.ok && !v2NoPids.driver.hasPids);
  });
});

describe("on this host", () => {
  const own = locateOwnCgroups();
  const holdsThisProcess = (dir: string): boolean =>
    readFileSync(join(dir, "cgroup.procs"), "utf8").split("\n").includes(String(process.pid));

  test("every cgroup found is a directory that lists this process", { skip: own.version === "none" }, () => {
    const dirs = [own.memory?.dir, own.pids?.dir, own.unified?.dir].filter((d) => d !== undefined);
    assert.ok(dirs.length > 0, JSON.stringify(own));
    for (const dir of dirs) {
      assert.ok(existsSync(join(dir, "cgroup.procs")), `${dir} is not a cgroup directory`);
      assert.ok(holdsThisProcess(dir), `${dir}/cgroup.procs does not list pid ${process.pid}`);
    }
  });

  test("the synchronous and the asynchronous detection find the same cgroups", async () => {
    const probed = await detectOwnCgroups();
    assert.deepEqual(
      [probed.version, probed.memory, probed.pids, probed.unified],
      [own.version, own.memory, own.pids, own.unified],
    );
  });
});
