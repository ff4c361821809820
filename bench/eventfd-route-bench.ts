/**
 * How a kernel notification reaches the eviction loop's thread: an eventfd signalled, then its
 * callback on a thread at the loop's priority (nice −20, as `run`'s loop thread and `watch`'s event
 * loop run), by the two routes `FdPoller` knows (src/linux/notify/fd-poller.ts): the eventfd read by
 * the thread's own event loop (the default) and one poll(2) on the libuv thread pool (the route
 * before it). Signals alternate between the routes, 5–20 ms apart, from another thread at the
 * default priority (as the kernel signals from the context of the process that crossed the
 * threshold), on an idle machine and with every CPU kept busy by `stress-ng --cpu <cpus>` at the
 * default priority (a node whose pods use all of its CPU when memory runs out).
 *
 *   node dist/bench/eventfd-route-bench.js [--signals 1000] [--load idle,busy]
 *
 * Needs Linux, root (for nice −20) and stress-ng for `busy`. Writes bench/results/eventfd-route.json.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { EVICTION_LOOP_NICE, setCurrentThreadNice } from "../src/linux/thread-priority.js";
import { closeFd, createEventfd, POLL, signalEventfd } from "../src/linux/notify/eventfd.js";
import { FdPoller } from "../src/linux/notify/fd-poller.js";
import { readBenchArgs } from "./bench-args.js";
import { describeMachine, machineInfo, median, num, quantile, table, writeResults } from "./bench-stats.js";

const ROUTES = ["event-loop", "thread-pool"] as const;
type Route = (typeof ROUTES)[number];
const LOADS = ["idle", "busy"] as const;
type Load = (typeof LOADS)[number];
const STRESS_NG = "/usr/bin/stress-ng";
const USAGE = "usage: node dist/bench/eventfd-route-bench.js [--signals 1000] [--load idle,busy]";

interface Args {
  readonly signals: number;
  readonly loads: readonly Load[];
}

/** What the main thread hands the listening thread: one eventfd per route and the signal clock. */
interface ListenerData {
  readonly fds: Record<Route, number>;
  /** [0]: the route signalled (an index into ROUTES), [1]: process.hrtime.bigint() at the signal. */
  readonly shared: SharedArrayBuffer;
}

function parseArgs(argv: readonly string[]): Args {
  return readBenchArgs(argv, USAGE, { signals: "string", load: "string" }, (a) => ({
    signals: a.wholeNumber("signals", 1000, 2),
    loads: a.choices("load", LOADS, ["idle", "busy"]),
  }));
}

/** The listening thread: raised like the loop thread, each route's callback timed against the signal. */
function listen(): void {
  const { fds, shared } = workerData as ListenerData;
  const clock = new BigInt64Array(shared);
  const priority = setCurrentThreadNice(EVICTION_LOOP_NICE, "the listening thread");
  const port = parentPort;
  if (port === null) throw new Error("the listener runs as a worker");
  const latencies: Record<Route, number[]> = { "event-loop": [], "thread-pool": [] };
  const ids = ROUTES.map((route) => {
    const poller = new FdPoller({ eventfds: route });
    if (poller.eventfdRoute !== route) throw new Error(`this runtime cannot read eventfds on the ${route}`);
    return {
      poller,
      id: poller.watch({
        fd: fds[route],
        events: POLL.in,
        drain: true,
        onReady: () => {
          latencies[route].push(Number(process.hrtime.bigint() - (clock[1] ?? 0n)) / 1e6);
          port.postMessage("heard");
        },
        onFailure: (error) => {
          throw error;
        },
      }),
    };
  });
  port.on("message", (message) => {
    if (message !== "report") return;
    void Promise.all(ids.map(({ poller, id }) => poller.unwatch(id))).then(() => {
      port.postMessage({ latencies, priority: priority.note });
      port.close();
    });
  });
  port.postMessage("ready");
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function measure(
  signals: number,
): Promise<{ readonly latencies: Record<Route, number[]>; readonly priority: string }> {
  const fds = { "event-loop": createEventfd(), "thread-pool": createEventfd() };
  const shared = new SharedArrayBuffer(16);
  const clock = new BigInt64Array(shared);
  const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { fds, shared } });
  // One message at a time: each await of next() takes the thread's next message; a failure of the
  // thread fails the wait in progress and every later one.
  const inbox: unknown[] = [];
  let waiting: { resolve: (message: unknown) => void; reject: (error: Error) => void } | undefined;
  let failed: Error | undefined;
  worker.on("message", (message) => {
    const waiter = waiting;
    waiting = undefined;
    if (waiter !== undefined) waiter.resolve(message);
    else inbox.push(message);
  });
  worker.on("error", (error) => {
    failed = error;
    waiting?.reject(error);
    waiting = undefined;
  });
  const next = (): Promise<unknown> => {
    if (failed !== undefined) return Promise.reject(failed);
    if (inbox.length > 0) return Promise.resolve(inbox.shift());
    return new Promise((resolve, reject) => (waiting = { resolve, reject }));
  };
  try {
    await next();
    for (let i = 0; i < signals; i++) {
      await sleep(5 + Math.random() * 15);
      const route = ROUTES[i % 2] ?? "event-loop";
      clock[1] = process.hrtime.bigint();
      signalEventfd(fds[route]);
      await next();
    }
    worker.postMessage("report");
    return (await next()) as { latencies: Record<Route, number[]>; priority: string };
  } finally {
    await worker.terminate();
    for (const fd of Object.values(fds)) closeFd(fd);
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.loads.includes("busy") && !existsSync(STRESS_NG)) {
    console.error(
      `eventfd route bench: --load busy runs ${STRESS_NG}, which is not there (install stress-ng)`,
    );
    process.exit(2);
  }
  const machine = machineInfo();
  console.log(describeMachine(machine));
  const results: {
    load: Load;
    route: Route;
    signals: number;
    medianMs: number;
    p99Ms: number;
    maxMs: number;
    over1Ms: number;
  }[] = [];
  let priority = "";
  for (const load of args.loads) {
    let hog: ChildProcess | undefined;
    if (load === "busy") {
      hog = spawn(STRESS_NG, ["--cpu", String(cpus().length)], { stdio: "ignore" });
      await sleep(1000);
    }
    try {
      const measured = await measure(args.signals);
      priority = measured.priority;
      for (const route of ROUTES) {
        const values = measured.latencies[route];
        results.push({
          load,
          route,
          signals: values.length,
          medianMs: median(values),
          p99Ms: quantile(values, 0.99),
          maxMs: Math.max(...values),
          over1Ms: values.filter((v) => v > 1).length,
        });
      }
    } finally {
      hog?.kill("SIGKILL");
    }
  }
  console.log(`listening thread: ${priority}; signals from a thread at the default priority\n`);
  console.log(
    table(
      ["load", "route", "signals", "median ms", "p99 ms", "max ms", "> 1 ms"],
      results.map((r) => [
        r.load === "busy" ? `stress-ng --cpu ${cpus().length}` : "idle",
        r.route,
        String(r.signals),
        num(r.medianMs, 3),
        num(r.p99Ms, 3),
        num(r.maxMs, 3),
        String(r.over1Ms),
      ]),
    ),
  );
  const file = fileURLToPath(new URL("../../bench/results/eventfd-route.json", import.meta.url));
  writeResults(file, { machine, priority, results });
  console.log(`\nwrote ${file}`);
}

if (isMainThread) await main();
else listen();
