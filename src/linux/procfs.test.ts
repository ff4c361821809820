/** Table-driven tests of the /proc parsers over text as real kernels write it, and the live reads against this process. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  parseKernelInteger,
  parseMountinfo,
  readOwnMounts,
  readProcStat,
  unescapeMountinfo,
  parseKernelPageSize,
  parseLoadavg,
  parseMeminfo,
  parseProcStat,
  parseStatm,
  parseBootTimeSeconds,
  parseProcLimits,
  parseProcStatusMemory,
  RLIMIT_UNLIMITED,
} from "./procfs.js";

const KiB = 1024n;

const MEMINFO_6_8 = `MemTotal:       24684084 kB
MemFree:        23975304 kB
MemAvailable:   24236460 kB
Buffers:           17320 kB
Cached:           453928 kB
SwapCached:            0 kB
Active:           259172 kB
Inactive:         258872 kB
Active(anon):       1552 kB
Inactive(anon):    54116 kB
Active(file):     257620 kB
Inactive(file):   204756 kB
Unevictable:       15664 kB
HugePages_Total:       0
HugePages_Free:        0
Hugepagesize:       2048 kB
DirectMap1G:    25165824 kB
`;

// A 3.10 kernel (RHEL 7 era) before MemAvailable existed.
const MEMINFO_3_10 = `MemTotal:        1016528 kB
MemFree:          110924 kB
Buffers:           84652 kB
Cached:           498480 kB
Inactive(file):   300100 kB
`;

describe("parseMeminfo", () => {
  const cases = [
    {
      name: "modern kernel",
      text: MEMINFO_6_8,
      want: {
        totalBytes: 24684084n * KiB,
        freeBytes: 23975304n * KiB,
        availableBytes: 24236460n * KiB,
        inactiveFileBytes: 204756n * KiB,
      },
    },
    {
      name: "kernel without MemAvailable",
      text: MEMINFO_3_10,
      want: {
        totalBytes: 1016528n * KiB,
        freeBytes: 110924n * KiB,
        availableBytes: undefined,
        inactiveFileBytes: 300100n * KiB,
      },
    },
    { name: "empty", text: "", want: undefined },
    { name: "not meminfo", text: "0.52 0.58 0.59 3/134 23996\n", want: undefined },
    { name: "MemFree missing", text: "MemTotal: 1000 kB\n", want: undefined },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(parseMeminfo(c.text), c.want));

  test("unit-less lines (HugePages_*) are not scaled", () => {
    // Indirect check: a file whose MemTotal has no unit is read as bytes.
    assert.equal(parseMeminfo("MemTotal: 4096\nMemFree: 1024\n")?.totalBytes, 4096n);
  });
});

describe("parseLoadavg", () => {
  const cases = [
    {
      name: "idle host",
      text: "0.52 0.58 0.59 3/134 23996\n",
      want: { load1: 0.52, load5: 0.58, load15: 0.59, running: 3, total: 134, lastPid: 23996 },
    },
    {
      name: "busy host with many threads",
      text: "12.04 9.87 7.15 17/48213 4194301\n",
      want: { load1: 12.04, load5: 9.87, load15: 7.15, running: 17, total: 48213, lastPid: 4194301 },
    },
    { name: "missing total", text: "0.52 0.58 0.59 3 23996\n", want: undefined },
    { name: "empty", text: "", want: undefined },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(parseLoadavg(c.text), c.want));
});

describe("parseStatm", () => {
  const cases = [
    {
      name: "cat",
      text: "765 405 377 5 0 123 0\n",
      want: { sizePages: 765, residentPages: 405, sharedPages: 377 },
    },
    {
      name: "a 30 MiB shell",
      text: "10451 8080 233 30 0 8340 0\n",
      want: { sizePages: 10451, residentPages: 8080, sharedPages: 233 },
    },
    {
      name: "kernel thread (all zero)",
      text: "0 0 0 0 0 0 0\n",
      want: { sizePages: 0, residentPages: 0, sharedPages: 0 },
    },
    { name: "truncated", text: "765 405\n", want: undefined },
    { name: "garbage", text: "765 x 377 5 0 123 0\n", want: undefined },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(parseStatm(c.text), c.want));
});

describe("parseProcStat", () => {
  const tail = "4194304 100 0 0 0 0 0 0 0 20 0 1 0 446301 3133440 361 18446744073709551615 93857931649024 0";
  const cases = [
    {
      name: "a running cat",
      text: `24520 (cat) R 24514 24514 22916 0 -1 ${tail}\n`,
      want: {
        pid: 24520,
        comm: "cat",
        state: "R",
        ppid: 24514,
        pgrp: 24514,
        session: 22916,
        cpuTicks: 0,
        childCpuTicks: 0,
        numThreads: 1,
        startTimeTicks: 446301,
        rssPages: 361,
      },
    },
    {
      name: "uninterruptible sleep (D) with threads",
      text: "812 (dd) D 1 812 812 0 -1 4194560 3000 0 1 0 40 900 0 0 20 0 4 0 99999 51200000 7680 18446744073709551615 1 0\n",
      want: {
        pid: 812,
        comm: "dd",
        state: "D",
        ppid: 1,
        pgrp: 812,
        session: 812,
        cpuTicks: 940,
        childCpuTicks: 0,
        numThreads: 4,
        startTimeTicks: 99999,
        rssPages: 7680,
      },
    },
    {
      name: "a name with spaces and parentheses",
      text: `77 (my (odd) name) S 1 77 77 0 -1 ${tail}\n`,
      want: {
        pid: 77,
        comm: "my (odd) name",
        state: "S",
        ppid: 1,
        pgrp: 77,
        session: 77,
        cpuTicks: 0,
        childCpuTicks: 0,
        numThreads: 1,
        startTimeTicks: 446301,
        rssPages: 361,
      },
    },
    {
      name: "zombie",
      text: `4000 (sh) Z 3999 3999 3999 0 -1 ${tail}\n`,
      want: {
        pid: 4000,
        comm: "sh",
        state: "Z",
        ppid: 3999,
        pgrp: 3999,
        session: 3999,
        cpuTicks: 0,
        childCpuTicks: 0,
        numThreads: 1,
        startTimeTicks: 446301,
        rssPages: 361,
      },
    },
    {
      name: "a busy process that has reaped children (utime stime cutime cstime = 1200 300 40 2)",
      text: "9 (make) S 1 9 9 0 -1 4194304 100 0 0 0 1200 300 40 2 20 0 1 0 5000 3133440 361 0 0\n",
      want: {
        pid: 9,
        comm: "make",
        state: "S",
        ppid: 1,
        pgrp: 9,
        session: 9,
        cpuTicks: 1500,
        childCpuTicks: 42,
        numThreads: 1,
        startTimeTicks: 5000,
        rssPages: 361,
      },
    },
    { name: "truncated", text: "24520 (cat) R 24514 24514\n", want: undefined },
    { name: "no name", text: `24520 R 24514 24514 22916 0 -1 ${tail}\n`, want: undefined },
    { name: "not a state letter", text: `24520 (cat) 7 24514 24514 22916 0 -1 ${tail}\n`, want: undefined },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(parseProcStat(c.text), c.want));

  test("this process's own stat parses and names this pid", async () => {
    if (process.platform !== "linux") return;
    const { readFile } = await import("node:fs/promises");
    const stat = parseProcStat(await readFile("/proc/self/stat", "utf8"));
    assert.equal(stat?.pid, process.pid);
    assert.match(stat?.state ?? "", /^[RS]$/); // running, or sleeping while the read was in flight
    assert.ok((stat?.numThreads ?? 0) >= 1);
  });

  test("readProcStat reads a live process, and nothing for a pid that does not exist", async () => {
    if (process.platform !== "linux") return;
    const { readFile } = await import("node:fs/promises");
    const own = await readProcStat(process.pid);
    assert.equal(own?.pid, process.pid);
    assert.equal(own?.ppid, process.ppid);
    // The start time never changes: the same as a direct read of the file.
    assert.equal(
      own?.startTimeTicks,
      parseProcStat(await readFile("/proc/self/stat", "utf8"))?.startTimeTicks,
    );
    assert.equal(await readProcStat(2 ** 22 + 1), undefined); // above the kernel's pid_max limit
  });
});

describe("parseMountinfo", () => {
  const text = [
    "22 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw",
    "30 24 0:26 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:13 - cgroup cgroup rw,memory",
    // A cgroup2 mount exposing a subtree (a container without a cgroup namespace), read-only.
    "31 24 0:27 /kubepods/pod1 /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw,nsdelegate",
    // No optional fields at all.
    "40 22 0:50 / /var/lib/evictd/pods/p/volumes/my\\040cache rw,relatime - tmpfs tmpfs rw,size=8192k",
    "not a mountinfo line",
    "",
  ].join("\n");
  const mounts = parseMountinfo(text);

  test("one entry per well-formed line, whatever the number of optional fields", () =>
    assert.deepEqual(
      mounts.map((m) => [m.mountPoint, m.fsType]),
      [
        ["/proc", "proc"],
        ["/sys/fs/cgroup/memory", "cgroup"],
        ["/sys/fs/cgroup", "cgroup2"],
        ["/var/lib/evictd/pods/p/volumes/my cache", "tmpfs"],
      ],
    ));

  test("root, options, source and read-only", () => {
    assert.deepEqual(mounts[1], {
      root: "/",
      mountPoint: "/sys/fs/cgroup/memory",
      mountOptions: ["rw", "nosuid", "nodev", "noexec", "relatime"],
      fsType: "cgroup",
      source: "cgroup",
      superOptions: ["rw", "memory"],
      readOnly: false,
    });
    assert.equal(mounts[2]?.root, "/kubepods/pod1");
    assert.equal(mounts[2]?.readOnly, true, "ro among the mount options");
  });

  test("octal escapes", () => {
    const cases = [
      { raw: "/a\\040b", want: "/a b" },
      { raw: "/tab\\011x", want: "/tab\tx" },
      { raw: "/nl\\012x", want: "/nl\nx" },
      { raw: "/back\\134slash", want: "/back\\slash" },
      { raw: "/plain", want: "/plain" },
    ];
    for (const c of cases) assert.equal(unescapeMountinfo(c.raw), c.want, c.raw);
  });

  test("this process's mounts include / and /proc", async () => {
    if (process.platform !== "linux") return;
    const points = (await readOwnMounts()).map((m) => m.mountPoint);
    assert.ok(points.includes("/"), JSON.stringify(points));
    assert.ok(points.includes("/proc"), JSON.stringify(points));
  });
});

describe("parseKernelInteger", () => {
  const cases = [
    { name: "pid_max", text: "32768\n", want: 32768 },
    { name: "pid_max on 64-bit default", text: "4194304\n", want: 4194304 },
    { name: "threads-max", text: "192730\n", want: 192730 },
    { name: "negative", text: "-1\n", want: undefined },
    { name: "empty", text: "", want: undefined },
    { name: "two values", text: "4096 4096\n", want: undefined },
  ];
  for (const c of cases) test(c.name, () => assert.equal(parseKernelInteger(c.text), c.want));
});

describe("parseKernelPageSize", () => {
  const smaps = (size: string): string =>
    `55d1a9a00000-55d1a9a02000 r--p 00000000 08:01 1048601   /usr/bin/cat
Size:                  8 kB
KernelPageSize:     ${size} kB
MMUPageSize:        ${size} kB
Rss:                   8 kB
`;
  const cases = [
    { name: "x86-64", text: smaps("4"), want: 4096 },
    { name: "arm64 with 64 KiB pages", text: smaps("64"), want: 65536 },
    { name: "no such line", text: "Size: 8 kB\n", want: undefined },
  ];
  for (const c of cases) test(c.name, () => assert.equal(parseKernelPageSize(c.text), c.want));
});

describe("parseProcStatusMemory", () => {
  // The lines around VmRSS as a 6.1 kernel writes them for a node process.
  const status = `Name:\tnode
Umask:\t0022
State:\tS (sleeping)
VmPeak:\t 1227468 kB
VmSize:\t 1161932 kB
VmLck:\t       0 kB
VmHWM:\t  100948 kB
VmRSS:\t   78452 kB
RssAnon:\t   32644 kB
RssFile:\t   45808 kB
Threads:\t12
`;
  const cases = [
    { name: "a process", text: status, want: { residentBytes: 78452 * 1024, virtualBytes: 1161932 * 1024 } },
    {
      // A kernel thread has no address space: no Vm* lines at all.
      name: "a kernel thread",
      text: "Name:\tkthreadd\nUmask:\t0000\nState:\tS (sleeping)\nThreads:\t1\n",
      want: undefined,
    },
    { name: "VmHWM is not VmRSS", text: "VmHWM:\t  100948 kB\nVmSize:\t 1161932 kB\n", want: undefined },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(parseProcStatusMemory(c.text), c.want));
});

describe("parseProcLimits", () => {
  const limits = (openFiles: string, addressSpace: string): string =>
    `Limit                     Soft Limit           Hard Limit           Units     
Max cpu time              unlimited            unlimited            seconds   
Max stack size            8388608              unlimited            bytes     
Max processes             96551                96551                processes 
Max open files            ${openFiles.padEnd(21)}1048576              files     
Max locked memory         8388608              8388608              bytes     
Max address space         ${addressSpace.padEnd(21)}unlimited            bytes     
Max file locks            unlimited            unlimited            locks     
`;
  const cases = [
    {
      name: "soft limits, not hard ones",
      text: limits("20000", "unlimited"),
      want: { openFiles: 20000, addressSpaceBytes: RLIMIT_UNLIMITED },
    },
    {
      name: "an address-space limit",
      text: limits("1024", "4294967296"),
      want: { openFiles: 1024, addressSpaceBytes: 4294967296 },
    },
    { name: "not a limits file", text: "Max open files\n", want: undefined },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(parseProcLimits(c.text), c.want));
});

describe("parseBootTimeSeconds", () => {
  const cases = [
    {
      name: "/proc/stat",
      text: "cpu  2255 34 2290 22625563 6290 127 456 0 0 0\nintr 114930548 113199788 3\nctxt 1990473\nbtime 1795869225\nprocesses 2915\n",
      want: 1795869225,
    },
    { name: "no btime line", text: "cpu  2255 34 2290\n", want: undefined },
  ];
  for (const c of cases) test(c.name, () => assert.equal(parseBootTimeSeconds(c.text), c.want));
});
