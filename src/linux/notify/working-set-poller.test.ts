// The working-set poller over cgroup files (regular files standing in for them here, and the real
// v1 memory cgroup of this process when there is one): the kubelet's working set, one wake per
// upward crossing, polling the more often the nearer the limit.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { performance } from "node:perf_hooks";
import { ownMemoryCgroupV1 } from "./testing/notify-test-support.js";
import { isRising, pollPeriodMs, SLOW_MS, workingSetFrom, WorkingSetPoller } from "./working-set-poller.js";

const temps: string[] = [];
after(async () => {
  for (const d of temps) await rm(d, { recursive: true, force: true });
});
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** Waits (up to 2 s) until `count()` reaches `n`. */
async function waitFor(count: () => number, n: number): Promise<void> {
  for (let i = 0; i < 200 && count() < n; i++) await sleep(10);
}

async function fakeCgroup(
  api: "v1" | "v2",
  usage: number,
  inactive: number,
): Promise<{ dir: string; set: (usage: number, inactive: number) => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "evictd-ws-"));
  temps.push(dir);
  const set = async (u: number, i: number): Promise<void> => {
    await writeFile(join(dir, api === "v1" ? "memory.usage_in_bytes" : "memory.current"), `${u}\n`);
    await writeFile(
      join(dir, "memory.stat"),
      api === "v1"
        ? `cache 1\ninactive_file 7\ntotal_cache 9\ntotal_inactive_file ${i}\n`
        : `anon 5\nfile 9\ninactive_file ${i}\nactive_file 3\n`,
    );
  };
  await set(usage, inactive);
  return { dir, set };
}

describe("workingSetFrom", () => {
  test("usage − inactive_file (v1: the hierarchical total), floored at 0; undefined when unreadable", () => {
    assert.equal(workingSetFrom("1000\n", "inactive_file 7\ntotal_inactive_file 300\n", "v1"), 700n);
    assert.equal(workingSetFrom("1000\n", "total_inactive_file 300\ninactive_file 200\n", "v2"), 800n);
    assert.equal(workingSetFrom("100\n", "total_inactive_file 300\n", "v1"), 0n);
    assert.equal(
      workingSetFrom("18446744073709551615\n", "total_inactive_file 0\n", "v1"),
      18446744073709551615n,
    );
    assert.equal(workingSetFrom("", "total_inactive_file 0\n", "v1"), undefined);
    assert.equal(
      workingSetFrom("5\n", "inactive_file 1\n", "v1"),
      undefined,
      "v1 reads the hierarchical total only",
    );
  });
});

describe("WorkingSetPoller", () => {
  for (const api of ["v1", "v2"] as const) {
    test(`${api}: one wake per upward crossing of the limit; none without a limit; none after stop`, async () => {
      const cg = await fakeCgroup(api, 900, 300); // working set 600
      const wakes: string[] = [];
      const poller = new WorkingSetPoller({
        cgroupDir: cg.dir,
        api,
        description: "hard memory eviction threshold",
        edgeMs: 5,
        slowMs: 5,
        aboveMs: 5,
      });
      poller.start((r) => wakes.push(r));
      try {
        await cg.set(2000, 100); // 1900, but no limit yet
        await sleep(30);
        assert.deepEqual(wakes, []);
        await cg.set(900, 300); // 600: below the limit about to be set
        poller.setLimit(1000n);
        await sleep(30);
        await cg.set(1200, 300); // 900
        await sleep(30);
        assert.deepEqual(wakes, []);
        // inactive_file shrinking (file pages activated) raises the working set without more usage:
        // exactly what a memcg threshold armed on usage misses.
        await cg.set(1200, 150); // 1050 > 1000
        await waitFor(() => wakes.length, 1);
        assert.equal(wakes.length, 1);
        assert.match(
          wakes[0] ?? "",
          /^hard memory eviction threshold crossed \(working set 1050 > 1000; seen \d+\.\d ms after the previous look, \d+\.\d ms after it was due\)$/,
        );
        await cg.set(1300, 100); // still above: no second wake
        await sleep(50);
        assert.equal(wakes.length, 1);
        await cg.set(900, 100); // 800: below again
        await sleep(80);
        await cg.set(1500, 100); // 1400: a new crossing
        await waitFor(() => wakes.length, 2);
        assert.equal(wakes.length, 2);
      } finally {
        await poller.stop();
      }
      await cg.set(900, 100);
      await sleep(20);
      await cg.set(5000, 0);
      await sleep(30);
      assert.equal(wakes.length, 2, "no wake after stop");
    });
  }

  test("the period is what a 2 GiB/s ramp takes to cover the distance left, between a floor and the slow one", () => {
    const MI = 1024n * 1024n;
    assert.equal(pollPeriodMs(0n, 5, 250), 5);
    assert.equal(pollPeriodMs(8n * MI, 5, 250), 5, "8 MiB: 3.9 ms at 2 GiB/s, the floor's 5 ms");
    assert.equal(pollPeriodMs(8n * MI, 25, 250), 25);
    assert.equal(pollPeriodMs(100n * MI, 5, 250), 48, "one 100 MiB quantity: 48.8 ms");
    assert.equal(pollPeriodMs(300n * MI, 5, 250), 146);
    assert.equal(pollPeriodMs(4096n * MI, 5, 250), 250);
    assert.equal(pollPeriodMs(18446744073709551615n, 5, 250), 250, "no limit in sight (uint64 max)");
    // The default cap, earlyoom's: a node 2 GiB or more below its limit is looked at once a second.
    assert.equal(pollPeriodMs(1024n * MI, 5, SLOW_MS), 500);
    assert.equal(pollPeriodMs(2048n * MI, 5, SLOW_MS), 1000);
    assert.equal(pollPeriodMs(4096n * MI, 5, SLOW_MS), 1000);
  });

  test("rising means growing faster than 16 MiB/s over the time between the two figures", () => {
    const MI = 1024n * 1024n;
    assert.equal(isRising(100n * MI, 101n * MI, 25), true, "1 MiB in 25 ms: 40 MiB/s");
    assert.equal(isRising(100n * MI, 100n * MI + 256n * 1024n, 25), false, "256 KiB in 25 ms: 10 MiB/s");
    assert.equal(isRising(100n * MI, 100n * MI, 25), false);
    assert.equal(isRising(101n * MI, 100n * MI, 25), false, "falling");
    assert.equal(isRising(0n, 18446744073709551615n, 1), true);
  });

  test("far from the limit, a poller with the default periods looks once a second (earlyoom's cap)", async () => {
    const MI = 1024 * 1024;
    const cg = await fakeCgroup("v1", 100 * MI, 0);
    const poller = new WorkingSetPoller({ cgroupDir: cg.dir, api: "v1", description: "t" });
    let reads = 0;
    const read = poller.read.bind(poller);
    poller.read = (atMost?: bigint) => {
      reads++;
      return read(atMost);
    };
    poller.setLimit(4196n * BigInt(MI)); // 4 GiB above the working set: 2 s at 2 GiB/s
    poller.start(() => undefined);
    try {
      await sleep(100); // the first look, at start
      reads = 0;
      await sleep(2100);
      assert.ok(reads >= 1 && reads <= 3, `${reads} looks in 2.1 s (every ${SLOW_MS} ms: 2)`);
    } finally {
      await poller.stop();
    }
  });

  test("looks more often the closer a rising working set is to the limit; near it but still, every steady period; above it, every above period", async () => {
    const MI = 1024 * 1024;
    const cg = await fakeCgroup("v1", 100 * MI, 0);
    const poller = new WorkingSetPoller({
      cgroupDir: cg.dir,
      api: "v1",
      description: "t",
      edgeMs: 5,
      steadyMs: 40,
      slowMs: 200,
      aboveMs: 50,
    });
    let reads = 0;
    const read = poller.read.bind(poller);
    poller.read = (atMost?: bigint) => {
      reads++;
      return read(atMost);
    };
    const readsIn = async (ms: number, during?: () => Promise<void>): Promise<number> => {
      await sleep(250); // the period in force before the change has run out
      reads = 0;
      // (`during` starts after that wait too, and the count runs until both end.)
      await Promise.all([sleep(ms), during?.()]);
      return reads;
    };
    poller.setLimit(4096n * BigInt(MI));
    poller.start(() => undefined);
    try {
      const far = await readsIn(600); // ~4 GiB away: every 200 ms
      await cg.set(3796 * MI, 0); // 300 MiB away: every 146 ms
      const nearer = await readsIn(600);
      await cg.set(4088 * MI, 0); // 8 MiB away, holding still: every 40 ms
      const still = await readsIn(600);
      await cg.set(4040 * MI, 0); // 56 MiB away, then rising 1 MiB every 10 ms (~100 MiB/s) to 8 MiB away
      const risingStart = performance.now();
      const rising = await readsIn(0, async () => {
        // Rewritten in place at a fixed width, not truncated first: a look between the truncation
        // and the write would find no number and wait the slow period.
        const usage = await open(join(cg.dir, "memory.usage_in_bytes"), "r+");
        try {
          for (let mib = 4040; mib <= 4088; mib++) {
            await usage.write(`${String(mib * MI).padEnd(24)}\n`, 0);
            await sleep(10);
          }
        } finally {
          await usage.close();
        }
      });
      const risingPerSecond = (rising * 1000) / (performance.now() - risingStart - 250);
      await cg.set(4200 * MI, 0); // above: every 50 ms
      const above = await readsIn(600);
      assert.ok(far <= 4, `far from the limit: ${far} reads in 600 ms`);
      assert.ok(nearer >= 2 && nearer <= 6, `300 MiB from the limit: ${nearer} reads in 600 ms`);
      assert.ok(still >= 6 && still <= 17, `8 MiB from the limit, still: ${still} reads in 600 ms`);
      // 56 → 8 MiB away: periods of 27 → 5 ms (~80 looks a second); at the steady floor, 25.
      assert.ok(
        risingPerSecond >= 45,
        `rising from 56 to 8 MiB from the limit: ${risingPerSecond} reads a second`,
      );
      assert.ok(above >= 6 && above <= 13, `above the limit: ${above} reads in 600 ms`);
    } finally {
      await poller.stop();
    }
  });

  test("reads memory.stat only when usage alone cannot settle it: never with usage at or below the limit", async () => {
    const cg = await fakeCgroup("v1", 100, 0);
    const poller = new WorkingSetPoller({
      cgroupDir: cg.dir,
      api: "v1",
      description: "t",
      edgeMs: 10,
      slowMs: 10,
      aboveMs: 10,
    });
    const errors: Error[] = [];
    const wakes: string[] = [];
    poller.setLimit(1000n);
    poller.start(
      (reason) => wakes.push(reason),
      (e) => errors.push(e),
    );
    try {
      // Without memory.stat, usage 100 and then 1000 (≤ the limit) still settle every tick.
      await rm(join(cg.dir, "memory.stat"));
      await sleep(100);
      await writeFile(join(cg.dir, "memory.usage_in_bytes"), "1000\n");
      await sleep(100);
      assert.deepEqual(errors, [], "memory.stat was read although usage alone settled it");
      assert.equal(poller.read(1000n), 1000n, "usage, the working set's upper bound");
      // Above the limit usage cannot settle it: memory.stat is read, and its absence is a failure.
      await writeFile(join(cg.dir, "memory.usage_in_bytes"), "1100\n");
      await waitFor(() => errors.length, 1);
      assert.equal(errors.length, 1);
      assert.deepEqual(wakes, []);
    } finally {
      await poller.stop();
    }
  });

  test("a poke (the kernel reclaimed for the cgroup) looks at once, not when the distance says", async () => {
    // Far below the limit with the fastest ramp's period capped at a minute: without the poke the
    // next look is a minute away.
    const cg = await fakeCgroup("v1", 1200, 300); // working set 900
    const wakes: string[] = [];
    const poller = new WorkingSetPoller({
      cgroupDir: cg.dir,
      api: "v1",
      description: "hard memory eviction threshold",
      slowMs: 60_000,
    });
    poller.setLimit(1n << 40n);
    poller.start((r) => wakes.push(r));
    try {
      await sleep(20);
      poller.setLimit(1000n);
      // Usage stands still at the limit; reclaim shrinks inactive_file: the working set rises above.
      await cg.set(1200, 100); // 1100
      await sleep(50);
      assert.deepEqual(wakes, [], "no look is due for a minute");
      poller.poke();
      await waitFor(() => wakes.length, 1);
      assert.equal(wakes.length, 1);
      assert.match(wakes[0] ?? "", /working set 1100 > 1000; looked when the kernel reported reclaim/);
    } finally {
      await poller.stop();
    }
  });

  test("pokes while the working set holds still below the limit are looked at no oftener than the steady period", async () => {
    const cg = await fakeCgroup("v1", 2000, 1500); // working set 500, usage above the limit
    const wakes: string[] = [];
    const poller = new WorkingSetPoller({
      cgroupDir: cg.dir,
      api: "v1",
      description: "hard memory eviction threshold",
      edgeMs: 1,
      steadyMs: 400,
      slowMs: 60_000,
    });
    poller.setLimit(1000n);
    poller.start((r) => wakes.push(r));
    try {
      await sleep(450); // past one steady period: the working set is known to hold still
      const belowBefore = poller.lastBelowAt;
      poller.poke(); // looked at within 1 ms: finds it flat
      for (let i = 0; i < 200 && poller.lastBelowAt === belowBefore; i++) await sleep(5);
      assert.notEqual(poller.lastBelowAt, belowBefore, "the poke's look");
      await cg.set(2000, 500); // 1500: above
      const pokedAt = performance.now();
      poller.poke(); // the previous poke found nothing: this look waits the steady period
      await waitFor(() => wakes.length, 1);
      const wokeAfterMs = performance.now() - pokedAt;
      assert.equal(wakes.length, 1);
      assert.ok(
        wokeAfterMs >= 300,
        `looked ${wokeAfterMs.toFixed(0)} ms after the poke, within the steady period`,
      );
    } finally {
      await poller.stop();
    }
  });

  test("refuses to start where the files are missing", () => {
    const poller = new WorkingSetPoller({ cgroupDir: "/nonexistent-cgroup", api: "v1", description: "t" });
    assert.throws(() => poller.start(() => undefined), /working-set:\/nonexistent-cgroup: cannot read/);
  });

  const own = ownMemoryCgroupV1();
  test(
    "reads the real v1 memory cgroup of this process",
    {
      skip:
        own === undefined || !existsSync(join(own, "memory.usage_in_bytes"))
          ? "no v1 memory cgroup here"
          : false,
    },
    () => {
      const poller = new WorkingSetPoller({ cgroupDir: own ?? "", api: "v1", description: "t" });
      const ws = poller.read();
      assert.ok(ws !== undefined && ws > 0n, `working set ${String(ws)}`);
    },
  );
});
