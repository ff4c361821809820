// The HTTP handler in-process: every endpoint, errors, content types, exact JSON integers.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { parseJsonExact } from "../formats/json/parse-json-exact.js";
import type { DaemonSnapshot } from "../app/node-view/snapshot.js";
import type { Observation, SyncReport } from "../core/engine/types.js";
import { IssueList } from "../core/issues.js";
import type { Signal } from "../core/model.js";
import { parseNodeSpec } from "../core/node/node-spec.js";
import { decodePodList } from "../core/pod/decode-pod.js";
import { EXACT_INT_PREFIX, exactInteger } from "../core/summary/exact-integer.js";
import { handle, PATHS, toExactJson, type MetricsSource } from "./http-handler.js";
import { DaemonMetrics } from "./metrics.js";

const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);
const U64_MAX = 18446744073709551615n;

function snapshot(over: Partial<DaemonSnapshot> = {}): DaemonSnapshot {
  const spec = parseNodeSpec({
    hostname: "host",
    raw: {
      name: "node-a",
      capacity: { memory: "2Gi" },
      stateDir: "/s",
      manifestDir: "/m",
      flags: ["--eviction-hard=memory.available<100Mi"],
    },
  });
  if (!spec.ok) assert.fail(JSON.stringify(spec.issues));
  const pods = decodePodList(
    [
      { metadata: { name: "a", uid: "ua" }, spec: { containers: [{ name: "c" }] } },
      { metadata: { name: "b", uid: "ub" }, spec: { containers: [{ name: "c" }] } },
      { metadata: { name: "c", uid: "uc" }, spec: { containers: [{ name: "c" }] } },
    ],
    "pods",
    new IssueList(),
  );
  const report: SyncReport = {
    now: T0,
    ran: true,
    statsUnavailable: false,
    observations: new Map<Signal, Observation>([
      ["memory.available", { available: 50n * 1024n * 1024n, capacity: 2n * 1024n ** 3n, time: T0 - 2000 }],
    ]),
    thresholdsMet: spec.spec.eviction.thresholds.filter((t) => t.signal === "memory.available"),
    awaitingGrace: [],
    staleStats: [],
    conditions: ["MemoryPressure"],
    evictions: [],
    refused: [],
    statsAge: [],
    updateNotifiers: false,
    outcome: "must evict pod(s) to reclaim",
  };
  return {
    node: spec.spec,
    startedAt: T0 - 60_000,
    now: T0 + 1000,
    capabilities: ["polling /proc"],
    conditions: ["MemoryPressure"],
    lastReport: report,
    summary: {
      node: {
        nodeName: "node-a",
        fs: {
          inodes: U64_MAX,
          inodesFree: `${EXACT_INT_PREFIX}18446744073709551615`,
          capacityBytes: 107374182400n,
        },
        rlimit: { maxpid: 4194304, curproc: 312 },
      },
      pods: [],
    },
    pods: pods.map((pod, i) => ({
      pod,
      phase: i < 2 ? "Running" : "Pending",
      conditions: [],
      qosClass: "BestEffort",
      restarts: {},
    })),
    evictions: [],
    evictionCounts: {},
    ...over,
  };
}

const get = (url: string, s = snapshot(), m: MetricsSource = new DaemonMetrics()) =>
  handle({ method: "GET", url }, { snapshot: () => s, metrics: m });

describe("handle", () => {
  test("/healthz", async () => {
    const r = await get("/healthz");
    assert.deepEqual(r, {
      status: 200,
      headers: { "content-type": "text/plain; charset=utf-8" },
      body: "ok",
    });
  });

  test("/healthz: the loop's verdict, with its reason, and no snapshot taken", async () => {
    let taken = 0;
    const sources = {
      snapshot: () => {
        taken++;
        return snapshot();
      },
      metrics: new DaemonMetrics(),
    };
    const sick = await handle(
      { method: "GET", url: "/healthz" },
      { ...sources, health: () => ({ ok: false, reason: "no sync for 31.0 s" }) },
    );
    assert.deepEqual([sick.status, sick.body], [500, "syncloop failed: no sync for 31.0 s\n"]);
    const well = await handle(
      { method: "GET", url: "/healthz" },
      { ...sources, health: () => ({ ok: true }) },
    );
    assert.deepEqual([well.status, well.body], [200, "ok"]);
    assert.equal(taken, 0);
  });

  test("/metrics: Prometheus text, kubelet counters after two evictions on different signals, histograms, pods from the snapshot", async () => {
    const m = new DaemonMetrics();
    m.recordEviction("memory.available", 0.004);
    m.recordEviction("nodefs.inodesFree");
    const r = await get("/metrics", snapshot(), m);
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8");
    const lines = r.body.split("\n");
    const at = lines.indexOf("# TYPE kubelet_evictions counter");
    assert.deepEqual(lines.slice(at - 1, at + 3), [
      "# HELP kubelet_evictions [ALPHA] Cumulative number of pod evictions by eviction signal",
      "# TYPE kubelet_evictions counter",
      'kubelet_evictions{eviction_signal="memory.available"} 1',
      'kubelet_evictions{eviction_signal="nodefs.inodesFree"} 1',
    ]);
    assert.ok(lines.includes("# TYPE kubelet_eviction_stats_age_seconds histogram"));
    assert.ok(lines.includes("# TYPE evictd_eviction_reaction_seconds histogram"));
    assert.ok(
      lines.includes(
        'evictd_eviction_reaction_seconds_bucket{le="0.005",eviction_signal="memory.available"} 1',
      ),
    );
    assert.ok(
      lines.includes(
        'evictd_eviction_reaction_seconds_bucket{le="+Inf",eviction_signal="memory.available"} 1',
      ),
    );
    assert.ok(lines.includes('evictd_pods{phase="Running"} 2'));
    assert.ok(lines.includes('evictd_pods{phase="Pending"} 1'));
  });

  test("/status: compact JSON by default, indented with ?pretty, same document", async () => {
    const compact = await get("/status");
    const pretty = await get("/status?pretty");
    assert.equal(compact.status, 200);
    assert.equal(compact.headers["content-type"], "application/json; charset=utf-8");
    assert.equal(compact.body.trimEnd().includes("\n"), false);
    assert.ok(pretty.body.startsWith('{\n  "node": {\n    "name": "node-a",'), pretty.body.slice(0, 80));
    assert.deepEqual(JSON.parse(pretty.body), JSON.parse(compact.body));
    const doc = JSON.parse(compact.body) as {
      conditions: unknown;
      signals: { signal: string; available: string; thresholds: { state: string }[] }[];
    };
    assert.deepEqual(doc.conditions, [
      { type: "MemoryPressure", status: "True" },
      { type: "DiskPressure", status: "False" },
      { type: "PIDPressure", status: "False" },
    ]);
    assert.deepEqual(doc.signals[0], {
      signal: "memory.available",
      available: "50Mi",
      capacity: "2Gi",
      time: "2025-01-01T11:59:58Z",
      thresholds: [
        {
          id: "hard/memory.available",
          type: "hard",
          value: "100Mi",
          quantity: "100Mi",
          gracePeriod: "0s",
          state: "met",
        },
      ],
    });
  });

  const prettyCases: { query: string; pretty: boolean }[] = [
    { query: "", pretty: false },
    { query: "?pretty", pretty: true },
    { query: "?pretty=1", pretty: true },
    { query: "?pretty=true", pretty: true },
    { query: "?pretty=false", pretty: false },
    { query: "?pretty=0", pretty: false },
    { query: "?other=1", pretty: false },
  ];
  for (const c of prettyCases) {
    test(`pretty printing: ${c.query || "(no query)"}`, async () => {
      const r = await get(`/stats/summary${c.query}`);
      assert.equal(r.body.startsWith("{\n  "), c.pretty);
    });
  }

  test("/stats/summary: uint64 counters exact, from bigints and from parseJsonExact's sentinels", async () => {
    const r = await get("/stats/summary");
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], "application/json; charset=utf-8");
    assert.ok(r.body.includes('"inodes":18446744073709551615,'), r.body);
    assert.ok(r.body.includes('"inodesFree":18446744073709551615,'), r.body);
    assert.ok(r.body.includes('"capacityBytes":107374182400'), r.body);
    // Read back exactly: the digits survive, unlike JSON.parse's 18446744073709552000.
    const back = parseJsonExact(r.body) as {
      node: { fs: { inodes: unknown; inodesFree: unknown }; rlimit: unknown };
    };
    assert.equal(exactInteger(back.node.fs.inodes), U64_MAX);
    assert.equal(exactInteger(back.node.fs.inodesFree), U64_MAX);
    assert.deepEqual(back.node.rlimit, { maxpid: 4194304, curproc: 312 });
  });

  test("/: the live page: conditions, signals against thresholds, next to go, reloading itself", async () => {
    const r = await get("/");
    assert.equal(r.status, 200);
    assert.equal(r.headers["content-type"], "text/html; charset=utf-8");
    assert.match(r.body, /<meta http-equiv="refresh" content="2">/);
    assert.match(r.body, /<h1>evictd · node-a<\/h1>/);
    assert.match(r.body, /MemoryPressure True/);
    assert.match(r.body, /<td>memory.available<\/td><td class="num">50Mi<\/td>/);
    assert.match(r.body, /hard 100Mi: met/);
    // No history given: the page says so instead of drawing empty charts.
    assert.match(r.body, /No step yet/);
    assert.doesNotMatch(r.body, /<script/);
  });

  test("/stats/summary before the first sample: 503", async () => {
    const { summary: _none, ...rest } = snapshot();
    const r = await get("/stats/summary", rest);
    assert.equal(r.status, 503);
    assert.deepEqual(JSON.parse(r.body), { error: "no stats sample yet" });
  });

  const errorCases: { method: string; url: string; status: number; allow?: string }[] = [
    { method: "GET", url: "/index.html", status: 404 },
    { method: "GET", url: "/statusx", status: 404 },
    { method: "GET", url: "/stats/summary/", status: 404 },
    { method: "GET", url: "//status", status: 404 },
    { method: "POST", url: "/nope", status: 404 },
    { method: "POST", url: "/status", status: 405, allow: "GET, HEAD" },
    { method: "DELETE", url: "/metrics", status: 405, allow: "GET, HEAD" },
    { method: "PUT", url: "/healthz", status: 405, allow: "GET, HEAD" },
    { method: "GET", url: "http://[bad", status: 400 },
  ];
  for (const c of errorCases) {
    test(`${c.method} ${c.url} → ${c.status}`, async () => {
      const r = await handle({ method: c.method, url: c.url }, { snapshot, metrics: new DaemonMetrics() });
      assert.equal(r.status, c.status);
      assert.equal(r.headers["content-type"], "text/plain; charset=utf-8");
      assert.equal(r.headers["allow"], c.allow);
      assert.ok(r.body.startsWith(String(c.status)));
    });
  }

  test("HEAD: the GET status and headers, no body; every path is served", async () => {
    for (const path of PATHS) {
      const h = await handle({ method: "HEAD", url: path }, { snapshot, metrics: new DaemonMetrics() });
      const g = await get(path);
      assert.equal(h.status, 200, path);
      assert.deepEqual(h.headers, g.headers, path);
      assert.equal(h.body, "");
      assert.ok(g.body.length > 0);
    }
    assert.deepEqual(PATHS, ["/", "/healthz", "/metrics", "/status", "/stats/summary"]);
  });

  test("a failure while rendering is a 500 answer, not a rejection", async () => {
    const broken: MetricsSource = {
      setPods: () => undefined,
      setScrapeState: () => undefined,
      render: () => Promise.reject(new Error("registry exploded")),
    };
    const r = await get("/metrics", snapshot(), broken);
    assert.equal(r.status, 500);
    assert.match(r.body, /registry exploded/);
  });
});

describe("toExactJson", () => {
  test("matches JSON.stringify, compact and pretty, wherever no bigint is involved", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        assert.equal(toExactJson(v), JSON.stringify(v));
        assert.equal(toExactJson(v, true), JSON.stringify(v, null, 2));
      }),
    );
  });

  const cases: { name: string; value: unknown; want: string }[] = [
    {
      name: "bigints as digits",
      value: { a: U64_MAX, b: [-5n, 0n] },
      want: '{"a":18446744073709551615,"b":[-5,0]}',
    },
    {
      name: "sentinel integer",
      value: [`${EXACT_INT_PREFIX}-99999999999999999`],
      want: "[-99999999999999999]",
    },
    {
      name: "sentinel fraction",
      value: [`${EXACT_INT_PREFIX}12345678901234567.5`],
      want: "[12345678901234567.5]",
    },
    {
      name: "malformed sentinel stays a string",
      value: [`${EXACT_INT_PREFIX}12x`],
      want: '["\\u0000int:12x"]',
    },
    {
      name: "undefined members skipped, in arrays null",
      value: { a: undefined, b: [undefined, () => 1] },
      want: '{"b":[null,null]}',
    },
    { name: "non-finite numbers are null", value: [NaN, Infinity, -0], want: "[null,null,0]" },
    { name: "toJSON honoured", value: { t: new Date(T0) }, want: '{"t":"2025-01-01T12:00:00.000Z"}' },
    { name: "empty containers", value: { a: {}, b: [] }, want: '{"a":{},"b":[]}' },
  ];
  for (const c of cases) {
    test(c.name, () => assert.equal(toExactJson(c.value), c.want));
  }

  test("pretty output nests bigints at the right indentation", () => {
    assert.equal(toExactJson({ a: { b: 1n } }, true), '{\n  "a": {\n    "b": 1\n  }\n}');
  });
});
