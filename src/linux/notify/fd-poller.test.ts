/** Tests of the fd poller: delivery and latency, coalescing, release, failures, and that the thread pool stays free. */
import fs from "node:fs";
import koffi from "koffi";
import { Worker } from "node:worker_threads";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import assert from "node:assert/strict";
import type { AdapterError } from "../../errors.js";
import { closeFd, createEventfd, POLL, signalEventfd } from "./eventfd.js";
import { FdPoller } from "./fd-poller.js";
import { scaled } from "../../testing/slowdown.js";
import { medianMax, openFdCount, waitFor } from "./testing/notify-test-support.js";

for (const route of ["event-loop", "thread-pool"] as const)
  describe(`FdPoller, eventfds on the ${route}`, () => {
    const poller = new FdPoller({ eventfds: route });
    test("reads eventfds where it was asked to", () => assert.equal(poller.eventfdRoute, route));
    const eventfds: number[] = [];
    const ids: number[] = [];
    const eventfd = (): number => {
      const fd = createEventfd();
      eventfds.push(fd);
      return fd;
    };
    // Unwatch before closing, even if a test failed: a live watch keeps the process alive.
    after(async () => {
      await Promise.all(ids.map((id) => poller.unwatch(id)));
      for (const fd of eventfds) closeFd(fd);
    });

    test("delivers eventfd readiness to the event loop in well under a millisecond", async (t) => {
      const fd = eventfd();
      let readyAt = 0n;
      const counts: bigint[] = [];
      ids.push(
        poller.watch({
          fd,
          events: POLL.in,
          drain: true,
          onReady: (_revents, count) => ((readyAt = process.hrtime.bigint()), counts.push(count)),
          onFailure: assert.fail,
        }),
      );
      const latencies: number[] = [];
      for (let i = 0; i < 201; i++) {
        await sleep(1);
        readyAt = 0n;
        const signalled = process.hrtime.bigint();
        signalEventfd(fd);
        await waitFor(() => readyAt !== 0n, 2000, "readiness");
        // The first sample includes binding libc, not delivery.
        if (i > 0) latencies.push(Number(readyAt - signalled) / 1e6);
      }
      const { median, max } = medianMax(latencies);
      t.diagnostic(
        `eventfd write → onReady over ${latencies.length} samples: median ${median.toFixed(3)} ms, max ${max.toFixed(3)} ms`,
      );
      assert.ok(median < 5, `median ${median} ms`);
      assert.ok(
        counts.every((c) => c === 1n),
        "each signal drained exactly once",
      );
    });

    test("drains the counter, so several signals before a read arrive as one readiness with their sum", async () => {
      const fd = eventfd();
      const counts: bigint[] = [];
      ids.push(
        poller.watch({
          fd,
          events: POLL.in,
          drain: true,
          onReady: (_r, count) => counts.push(count),
          onFailure: assert.fail,
        }),
      );
      signalEventfd(fd, 5n);
      await waitFor(() => counts.length > 0, 2000, "readiness");
      await sleep(20);
      assert.deepEqual(counts, [5n], "level-triggered readiness must not repeat once drained");
    });

    test("one poll serves many fds and reports only the ready one", async () => {
      const seen: number[] = [];
      const fds = [eventfd(), eventfd(), eventfd()];
      fds.forEach((fd, i) =>
        ids.push(
          poller.watch({
            fd,
            events: POLL.in,
            drain: true,
            onReady: () => seen.push(i),
            onFailure: assert.fail,
          }),
        ),
      );
      const ready = fds[1];
      assert.ok(ready !== undefined);
      signalEventfd(ready);
      await waitFor(() => seen.length > 0, 2000, "readiness");
      await sleep(20);
      assert.deepEqual(seen, [1]);
    });

    test("armed watches share one poll(2): fs calls on the thread pool keep flowing", async () => {
      // With a read per source pending on the pool (4 threads) instead, 4 armed sources hang fs for good.
      for (let i = 0; i < 6; i++)
        ids.push(
          poller.watch({
            fd: eventfd(),
            events: POLL.in,
            drain: true,
            onReady: () => {},
            onFailure: assert.fail,
          }),
        );
      const started = Date.now();
      await Promise.all(Array.from({ length: 64 }, () => fs.promises.readFile("/proc/self/status")));
      assert.ok(Date.now() - started < 2000);
    });

    test("a bad descriptor is reported through onFailure and dropped", async () => {
      const failures: AdapterError[] = [];
      const id = poller.watch({
        fd: 1_000_000,
        events: POLL.in,
        drain: true,
        onReady: assert.fail,
        onFailure: (e) => failures.push(e),
      });
      await waitFor(() => failures.length > 0, 2000, "the failure");
      assert.equal(failures[0]?.code, "fd-poll-error");
      // poll(2) reports POLLNVAL; the event loop's route cannot take the descriptor in the first place.
      assert.match(failures[0]?.message ?? "", route === "thread-pool" ? /revents 0x20/ : /EBADF/);
      await poller.unwatch(id); // already dropped: resolves at once
    });
  });

for (const route of ["event-loop", "thread-pool"] as const)
  describe(`FdPoller lifecycle, eventfds on the ${route}`, () => {
    test("nothing is delivered after unwatch, the last unwatch ends polling, and a new watch starts again", async () => {
      const poller = new FdPoller({ eventfds: route });
      const fds = openFdCount();
      const fd = createEventfd();
      try {
        let ready = 0;
        const id = poller.watch({
          fd,
          events: POLL.in,
          drain: true,
          onReady: () => ready++,
          onFailure: assert.fail,
        });
        signalEventfd(fd);
        await waitFor(() => ready === 1, 2000, "readiness");
        await poller.unwatch(id);
        assert.equal(poller.size, 0);
        signalEventfd(fd);
        await sleep(30);
        assert.equal(ready, 1);
        assert.equal(
          openFdCount(),
          fds + 1,
          "only the test's own eventfd is left: the poller's control fd is gone",
        );

        const again = poller.watch({
          fd,
          events: POLL.in,
          drain: true,
          onReady: () => ready++,
          onFailure: assert.fail,
        });
        await waitFor(() => ready === 2, 2000, "the pending signal, seen by the new poll");
        await poller.unwatch(again);
      } finally {
        closeFd(fd);
      }
      assert.equal(openFdCount(), fds);
    });
  });

for (const route of ["event-loop", "thread-pool"] as const)
  describe(`FdPoller in a thread that dies, eventfds on the ${route}`, () => {
    test("a worker whose watch is armed ends within the poll timeout when it throws, never hangs", async () => {
      // The poll(2) in flight keeps the worker's teardown waiting until it returns: its timeout bounds
      // that wait (before, a poll(-1) could hold the process at exit for good).
      const pollerUrl = new URL("./fd-poller.js", import.meta.url).href;
      const eventfdUrl = new URL("./eventfd.js", import.meta.url).href;
      const worker = new Worker(
        `import(${JSON.stringify(eventfdUrl)}).then(async ({ createEventfd, POLL }) => {
        const { FdPoller } = await import(${JSON.stringify(pollerUrl)});
        new FdPoller({ eventfds: ${JSON.stringify(route)} }).watch({ fd: createEventfd(), events: POLL.in, drain: true, onReady() {}, onFailure() {} });
        setTimeout(() => { throw new Error("the thread fails"); }, 50);
      });`,
        { eval: true },
      );
      // Timed from the failure, not from the worker's start: loading its modules took most of 3 s
      // in the emulated cgroup v2 guest, where the bound (a poll timeout of 1 s and teardown) is
      // stretched like every timing there.
      let failedAt = Number.NaN;
      const errors: Error[] = [];
      worker.on("error", (e) => {
        failedAt = Date.now();
        errors.push(e);
      });
      const code = await new Promise<number>((resolve) => worker.once("exit", resolve));
      const tookMs = Date.now() - failedAt;
      assert.equal(code, 1);
      assert.match(errors[0]?.message ?? "", /the thread fails/);
      assert.ok(tookMs < scaled(2500), `the worker took ${tookMs} ms to end after it failed`);
    });
  });

describe("FdPoller while the thread pool is busy", () => {
  // Every pool thread held by slow work (a stalled disk, a slow filesystem): an eventfd read by the
  // event loop is still heard at once; on the pool's poll(2), a readiness after the first waits for
  // the next poll, queued behind that work.
  const poolSize = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  const usleep = koffi.load("libc.so.6").func("int usleep(unsigned int usec)") as unknown as {
    async: (usec: number, callback: (error: unknown, result: number) => void) => void;
  };

  for (const route of ["event-loop", "thread-pool"] as const)
    test(`eventfds on the ${route}: ${route === "event-loop" ? "heard before any pool job ends" : "the second readiness waits for a pool job"}`, async () => {
      const poller = new FdPoller({ eventfds: route });
      const fd = createEventfd();
      const events: string[] = [];
      const id = poller.watch({
        fd,
        events: POLL.in,
        drain: true,
        onReady: () => events.push("ready"),
        onFailure: assert.fail,
      });
      try {
        // Let the pool's poll(2) be in flight before the pool fills up.
        await sleep(20);
        const jobs = Array.from(
          { length: 2 * poolSize },
          () =>
            new Promise<void>((resolve) =>
              usleep.async(scaled(400) * 1000, () => {
                events.push("job");
                resolve();
              }),
            ),
        );
        for (let signal = 1; signal <= 2; signal++) {
          signalEventfd(fd);
          await waitFor(
            () => events.filter((e) => e === "ready").length === signal,
            scaled(5000),
            `readiness ${signal}`,
          );
        }
        await Promise.all(jobs);
        const second = events.lastIndexOf("ready");
        const firstJob = events.indexOf("job");
        if (route === "event-loop") assert.ok(second < firstJob, `events: ${events.join(" ")}`);
        else assert.ok(second > firstJob, `events: ${events.join(" ")}`);
      } finally {
        await poller.unwatch(id);
        closeFd(fd);
      }
    });
});
