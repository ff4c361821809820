/**
 * The adapter against real HTTP(S) servers on loopback. Their answers are modelled on Prometheus'
 * handlers as documented at https://prometheus.io/docs/prometheus/latest/querying/api/: the
 * `{"status":"success","data":...}` envelope, matrices of `[<unix seconds>, "<value>"]` pairs,
 * `{"status":"error","errorType":...,"error":...}` with 400/422/503.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import zlib from "node:zlib";
import { after, before, describe, test } from "node:test";
import { AdapterError } from "../errors.js";
import {
  connectPrometheus,
  type PrometheusConnectOptions,
  type PrometheusHttpApi,
  type PrometheusRetryNotice,
} from "./prometheus-http-api.js";

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly form: URLSearchParams;
}

type Handler = (seen: Seen, res: http.ServerResponse, index: number) => void;

interface TestServer {
  readonly url: string;
  readonly seen: Seen[];
}

const servers: (http.Server | https.Server)[] = [];
const apis: PrometheusHttpApi[] = [];
const dir = mkdtempSync(join(tmpdir(), "evictd-prometheus-"));

after(() => {
  for (const api of apis) api.close();
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

function serve(handler: Handler, tls?: { key: Buffer; cert: Buffer }): Promise<TestServer> {
  const seen: Seen[] = [];
  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const entry: Seen = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        form: new URLSearchParams(Buffer.concat(chunks).toString("utf8")),
      };
      seen.push(entry);
      handler(entry, res, seen.length - 1);
    });
  };
  const server = tls === undefined ? http.createServer(listener) : https.createServer(tls, listener);
  servers.push(server);
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `${tls === undefined ? "http" : "https"}://127.0.0.1:${port}`, seen });
    });
  });
}

function json(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: http.OutgoingHttpHeaders = {},
) {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function connect(options: PrometheusConnectOptions): PrometheusHttpApi {
  const api = connectPrometheus(options);
  apis.push(api);
  return api;
}

/** Asserts that `promise` rejects with an AdapterError of `code`, and returns it. */
async function adapterError(promise: Promise<unknown>, code: string): Promise<AdapterError> {
  const error = await promise.then(
    () => assert.fail(`expected AdapterError ${code}`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof AdapterError, inspect(error));
  assert.equal(error.code, code, error.message);
  return error;
}

const MATRIX = {
  status: "success",
  data: {
    resultType: "matrix",
    result: [
      {
        metric: { __name__: "node_memory_MemAvailable_bytes", instance: "n1:9100", job: "node" },
        values: [
          [1700000000, "1"],
          [1700000000.123, "2.5e9"],
          [1700000001.007, "NaN"],
          [1700000001.25, "+Inf"],
        ],
      },
      { metric: { __name__: "node_memory_MemAvailable_bytes", instance: "n2:9100" }, values: [] },
    ],
  },
};

describe("samples", () => {
  test("parses a matrix to ms times and numbers, from a form POSTed to /api/v1/query", async () => {
    const server = await serve((_, res) => json(res, 200, MATRIX));
    const api = connect({ url: server.url, requestTimeoutMs: 5_000 });
    const series = await api.samples('node_memory_MemAvailable_bytes{job="node"}', 1700000001250, 1250);
    assert.deepEqual(series, [
      {
        labels: { __name__: "node_memory_MemAvailable_bytes", instance: "n1:9100", job: "node" },
        // The sample at exactly endMs − windowMs is out: the window is (end − window, end].
        samples: [
          [1700000000123, 2.5e9],
          [1700000001007, NaN],
          [1700000001250, Infinity],
        ],
      },
      { labels: { __name__: "node_memory_MemAvailable_bytes", instance: "n2:9100" }, samples: [] },
    ]);
    const [request] = server.seen;
    assert.equal(request?.method, "POST");
    assert.equal(request?.path, "/api/v1/query");
    assert.equal(request?.headers["content-type"], "application/x-www-form-urlencoded");
    assert.equal(request?.headers.authorization, undefined);
    assert.deepEqual(
      [...(request?.form ?? [])],
      [
        ["query", 'node_memory_MemAvailable_bytes{job="node"}[1250ms]'],
        ["time", "1700000001.25"],
      ],
    );
  });

  test("whole seconds are sent without a fraction; a gzipped answer is read", async () => {
    const server = await serve((_, res) => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Encoding": "gzip" });
      res.end(zlib.gzipSync(JSON.stringify(MATRIX)));
    });
    const api = connect({ url: server.url, requestTimeoutMs: 5_000 });
    const series = await api.samples("x", 1700000002000, 60_000);
    assert.equal(series[0]?.samples.length, 4);
    assert.equal(server.seen[0]?.form.get("time"), "1700000002");
    assert.equal(server.seen[0]?.headers["accept-encoding"], "gzip");
  });

  test("a path prefix in the URL is kept", async () => {
    const server = await serve((_, res) => json(res, 200, MATRIX));
    const api = connect({ url: `${server.url}/prom/`, requestTimeoutMs: 5_000 });
    await api.samples("up", 1700000002000, 1000);
    assert.equal(server.seen[0]?.path, "/prom/api/v1/query");
  });

  test("a result that is not a matrix is prometheus-response", async () => {
    const server = await serve((_, res) =>
      json(res, 200, { status: "success", data: { resultType: "vector", result: [] } }),
    );
    const api = connect({ url: server.url, requestTimeoutMs: 5_000 });
    const error = await adapterError(api.samples("up", 1700000002000, 1000), "prometheus-response");
    assert.match(error.message, /"vector", not a matrix/);
  });

  test("a body past the cap is refused as soon as its Content-Length is seen", async () => {
    const server = await serve((_, res) => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": String(600 * 2 ** 20) });
      res.write("{");
    });
    const api = connect({ url: server.url, requestTimeoutMs: 5_000 });
    const error = await adapterError(api.samples("up", 1700000002000, 1000), "prometheus-response");
    assert.match(error.message, /exceeds 512 MiB/);
  });
});

describe("series", () => {
  test("POSTs match[], start and end to /api/v1/series and returns the label sets", async () => {
    const labels = [
      { __name__: "kube_pod_info", namespace: "a", pod: "p1", node: "n1" },
      { __name__: "kube_pod_info", namespace: "b", pod: "p2", node: "n1" },
    ];
    const server = await serve((_, res) => json(res, 200, { status: "success", data: labels }));
    const api = connect({ url: server.url, requestTimeoutMs: 5_000 });
    assert.deepEqual(await api.series('kube_pod_info{node="n1"}', 1700000000000, 1700000003600500), labels);
    assert.equal(server.seen[0]?.path, "/api/v1/series");
    assert.deepEqual(
      [...(server.seen[0]?.form ?? [])],
      [
        ["match[]", 'kube_pod_info{node="n1"}'],
        ["start", "1700000000"],
        ["end", "1700000003600.5"],
      ],
    );
  });
});

describe("credentials", () => {
  test("user:password in the URL go as basic auth and appear in no error", async () => {
    const server = await serve((seen, res, i) =>
      i === 0
        ? json(res, 200, MATRIX)
        : json(res, 401, { status: "error", errorType: "unauthorized", error: "bad credentials" }),
    );
    const url = server.url.replace("://", "://alice:s3cr%2Ft@");
    const api = connect({ url, requestTimeoutMs: 5_000 });
    await api.samples("up", 1700000002000, 1000);
    assert.equal(
      server.seen[0]?.headers.authorization,
      `Basic ${Buffer.from("alice:s3cr/t").toString("base64")}`,
    );
    const error = await adapterError(api.samples("up", 1700000002000, 1000), "prometheus-query");
    assert.equal(error.hint, "check --bearer-token-file or the credentials in --url");
    const everything = `${inspect(error, { depth: 10 })} ${error.message} ${error.hint}`;
    assert.ok(everything.includes(server.url), everything);
    assert.doesNotMatch(everything, /alice|s3cr/);

    // Nor when the server cannot be reached (a port nothing listens on).
    const closed = await closedPort();
    const unreachable = await adapterError(
      connect({ url: `http://alice:s3cr@127.0.0.1:${closed}`, requestTimeoutMs: 5_000, retries: 0 }).samples(
        "up",
        1700000002000,
        1000,
      ),
      "prometheus-unreachable",
    );
    assert.doesNotMatch(inspect(unreachable, { depth: 10 }), /alice|s3cr/);
  });

  test("an unusable URL is prometheus-url, named without its credentials", () => {
    for (const url of [
      "ftp://bob:hunter2@h/x",
      "bob:hunter2@h:9090",
      "http://bob:hunter2@[::1",
      "nonsense",
    ]) {
      assert.throws(
        () => connectPrometheus({ url, requestTimeoutMs: 1000 }),
        (e: unknown) =>
          e instanceof AdapterError &&
          e.code === "prometheus-url" &&
          !/hunter2|bob/.test(e.message) &&
          (url === "nonsense" ? e.message.includes("nonsense") : e.message.includes("<credentials>@")),
      );
    }
  });

  test("credentials in the URL and a token file are refused together", () => {
    assert.throws(
      () =>
        connectPrometheus({
          url: "http://u:p@127.0.0.1:9090",
          bearerTokenFile: join(dir, "token"),
          requestTimeoutMs: 1000,
        }),
      (e: unknown) => e instanceof AdapterError && e.code === "prometheus-auth" && !e.message.includes("u:p"),
    );
  });

  test("the bearer token file is read again for every request", async () => {
    const server = await serve((_, res) => json(res, 200, MATRIX));
    const file = join(dir, "rotating-token");
    writeFileSync(file, "first-token\n");
    const api = connect({ url: server.url, bearerTokenFile: file, requestTimeoutMs: 5_000 });
    await api.samples("up", 1700000002000, 1000);
    writeFileSync(file, "second-token");
    await api.samples("up", 1700000003000, 1000);
    assert.deepEqual(
      server.seen.map((s) => s.headers.authorization),
      ["Bearer first-token", "Bearer second-token"],
    );
  });

  test("a missing or empty token file is named, and nothing is sent", async () => {
    const server = await serve((_, res) => json(res, 200, MATRIX));
    const missing = join(dir, "no-such-token");
    const api = connect({ url: server.url, bearerTokenFile: missing, requestTimeoutMs: 5_000 });
    const error = await adapterError(api.samples("up", 1700000002000, 1000), "prometheus-token-file");
    assert.ok(error.message.includes(missing), error.message);
    assert.match(error.message, /ENOENT/);
    const empty = join(dir, "empty-token");
    writeFileSync(empty, " \n");
    const emptyApi = connect({ url: server.url, bearerTokenFile: empty, requestTimeoutMs: 5_000 });
    const emptyError = await adapterError(emptyApi.samples("up", 1, 1), "prometheus-token-file");
    assert.match(emptyError.message, /empty/);
    assert.equal(server.seen.length, 0);
  });
});

describe("errors and retries", () => {
  test("400 bad_data names the query and the server's message, and is not retried", async () => {
    const server = await serve((_, res) =>
      json(res, 400, {
        status: "error",
        errorType: "bad_data",
        error: 'invalid parameter "query": 1:4: parse error: unexpected "}"',
      }),
    );
    const retries: PrometheusRetryNotice[] = [];
    const api = connect({ url: server.url, requestTimeoutMs: 5_000, onRetry: (n) => retries.push(n) });
    const error = await adapterError(api.samples("up}", 1700000002000, 1000), "prometheus-query");
    assert.ok(error.message.includes("up}[1000ms]"), error.message);
    assert.ok(error.message.includes('bad_data: invalid parameter "query": 1:4: parse error'), error.message);
    assert.equal(server.seen.length, 1);
    assert.equal(retries.length, 0);
  });

  test("422 execution (a query limit) names the server's message; a non-JSON body is excerpted", async () => {
    const limit = "query processing would load too many samples into memory in query execution";
    const server = await serve((_, res, i) =>
      i === 0
        ? json(res, 422, { status: "error", errorType: "execution", error: limit })
        : res.writeHead(500, { "Content-Type": "text/html" }).end(`<html>${"x".repeat(500)}</html>`),
    );
    const api = connect({ url: server.url, requestTimeoutMs: 5_000 });
    const error = await adapterError(api.series("up", 1, 2), "prometheus-query");
    assert.ok(error.message.includes(`series up`), error.message);
    assert.ok(error.message.includes(`HTTP 422: execution: ${limit}`), error.message);
    const html = await adapterError(api.series("up", 1, 2), "prometheus-query");
    assert.match(html.message, /HTTP 500: <html>x{194}…$/);
  });

  test("503 then 200: retried once, onRetry told, Retry-After honoured", async () => {
    const server = await serve((_, res, i) =>
      i === 0
        ? json(
            res,
            503,
            { status: "error", errorType: "unavailable", error: "TSDB not ready" },
            { "Retry-After": "0" },
          )
        : json(res, 200, MATRIX),
    );
    const retries: PrometheusRetryNotice[] = [];
    const api = connect({ url: server.url, requestTimeoutMs: 5_000, onRetry: (n) => retries.push(n) });
    const series = await api.samples("up", 1700000002000, 60_000);
    assert.equal(series.length, 2);
    assert.equal(server.seen.length, 2);
    assert.equal(retries.length, 1);
    assert.equal(retries[0]?.what, "query up[60000ms]");
    assert.equal(retries[0]?.attempt, 1);
    assert.equal(retries[0]?.retryInMs, 0);
    assert.match(retries[0]?.message ?? "", /HTTP 503: unavailable: TSDB not ready/);
  });

  test("a server that never answers: prometheus-timeout after each attempt's timeout", async () => {
    const server = await serve(() => undefined);
    const retries: PrometheusRetryNotice[] = [];
    const api = connect({
      url: server.url,
      requestTimeoutMs: 300,
      retries: 1,
      onRetry: (n) => retries.push(n),
    });
    const started = Date.now();
    const error = await adapterError(api.samples("up", 1700000002000, 1000), "prometheus-timeout");
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 500 && elapsed < 20_000, `${elapsed} ms`);
    assert.ok(error.message.includes("query up[1000ms]"), error.message);
    assert.match(error.message, /within 300ms \(gave up after 2 attempts\)/);
    assert.equal(error.hint, "raise --request-timeout or lower --chunk");
    assert.equal(server.seen.length, 2);
    assert.deepEqual(
      retries.map((n) => [n.attempt, n.retryInMs]),
      [[1, 500]],
    );
  });

  test("connection refused: prometheus-unreachable after the retries", async () => {
    const port = await closedPort();
    const retries: PrometheusRetryNotice[] = [];
    const api = connect({
      url: `http://127.0.0.1:${port}/prom`,
      requestTimeoutMs: 5_000,
      retries: 1,
      onRetry: (n) => retries.push(n),
    });
    const error = await adapterError(api.series("up", 1, 2), "prometheus-unreachable");
    assert.ok(error.message.includes(`http://127.0.0.1:${port}/prom/api/v1/series`), error.message);
    assert.match(error.message, /ECONNREFUSED.*gave up after 2 attempts/);
    assert.equal(error.hint, "check --url and that Prometheus listens there");
    assert.equal(retries.length, 1);
  });

  test("the caller's abort stops the retries at once, with its reason", async () => {
    const server = await serve((_, res) =>
      json(res, 503, { status: "error", errorType: "unavailable", error: "x" }),
    );
    const controller = new AbortController();
    const reason = new Error("the import was cancelled");
    const api = connect({
      url: server.url,
      requestTimeoutMs: 5_000,
      retries: 4,
      // Aborted while the adapter waits out its first backoff (500 ms).
      onRetry: () => setTimeout(() => controller.abort(reason), 20),
    });
    const started = Date.now();
    await assert.rejects(api.samples("up", 1700000002000, 1000, controller.signal), (e) => e === reason);
    assert.ok(Date.now() - started < 450, `${Date.now() - started} ms`);
    assert.equal(server.seen.length, 1);

    // And while a request is under way.
    const silent = await serve(() => undefined);
    const pending = connect({ url: silent.url, requestTimeoutMs: 60_000 });
    const inFlight = new AbortController();
    setTimeout(() => inFlight.abort(reason), 50);
    await assert.rejects(pending.samples("up", 1700000002000, 1000, inFlight.signal), (e) => e === reason);
  });
});

describe("https", () => {
  let tls: { key: Buffer; cert: Buffer; certFile: string };
  let server: TestServer;

  before(async () => {
    const keyFile = join(dir, "key.pem");
    const certFile = join(dir, "cert.pem");
    execFileSync(
      "openssl",
      [
        ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost"],
        ...["-addext", "subjectAltName=IP:127.0.0.1", "-days", "1", "-keyout", keyFile, "-out", certFile],
      ],
      { stdio: "ignore" },
    );
    tls = { key: readFileSync(keyFile), cert: readFileSync(certFile), certFile };
    server = await serve((_, res) => json(res, 200, MATRIX), tls);
  });

  test("a server whose certificate --ca-file signed is trusted", async () => {
    const api = connect({ url: server.url, caFile: tls.certFile, requestTimeoutMs: 5_000 });
    assert.equal((await api.samples("up", 1700000002000, 60_000)).length, 2);
  });

  test("without --ca-file its self-signed certificate is refused, without retries", async () => {
    const retries: PrometheusRetryNotice[] = [];
    const api = connect({ url: server.url, requestTimeoutMs: 5_000, onRetry: (n) => retries.push(n) });
    const error = await adapterError(api.samples("up", 1700000002000, 60_000), "prometheus-unreachable");
    assert.match(error.message, /SELF_SIGNED|self.signed|certificate/i);
    assert.match(error.hint ?? "", /--ca-file/);
    assert.equal(retries.length, 0);
  });

  test("an unreadable --ca-file is named at construction", () => {
    const missing = join(dir, "no-such-ca.pem");
    assert.throws(
      () => connectPrometheus({ url: server.url, caFile: missing, requestTimeoutMs: 1000 }),
      (e: unknown) =>
        e instanceof AdapterError && e.code === "prometheus-ca-file" && e.message.includes(missing),
    );
  });
});

/** A port nothing listens on: one the kernel just handed out and that was closed again. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
