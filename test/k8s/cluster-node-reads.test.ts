// The Kubernetes adapter's reads against the fake API server: Summary (exact uint64), configz, Node
// and the pod list, through the API server proxy and straight from the kubelet (over TLS).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { EXACT_INT_PREFIX, exactInteger, parseJsonExact } from "../../src/formats/json/parse-json-exact.js";
import { KubeApiError } from "../../src/kubernetes/kube-api-error.js";
import { REAL_DATA, TLS_FIXTURES } from "../harness/fake-api-server/fake-api-server.js";
import { startHarness, type Harness } from "./cluster-node-harness.js";

const NODE = "datagen-1-35";

function field(value: unknown, ...keys: string[]): unknown {
  let v = value;
  for (const k of keys)
    v = typeof v === "object" && v !== null ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

describe("reads through the API server proxy", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test("describe names the proxy URL of the node", () => {
    assert.equal(h.node.nodeName, NODE);
    assert.equal(h.node.describe, `API server proxy ${h.server.url}/api/v1/nodes/${NODE}/proxy`);
  });

  test("summary: GET …/proxy/stats/summary with the bearer token; the payload as sent", async () => {
    h.server.clearRequests();
    const summary = await h.node.summary();
    const [request, ...more] = h.server.requests;
    assert.equal(more.length, 0);
    assert.equal(request?.method, "GET");
    assert.equal(request.path, `/api/v1/nodes/${NODE}/proxy/stats/summary`);
    assert.equal(request.authorization, `Bearer ${h.server.token}`);
    assert.equal(request.body, "");
    const expected = parseJsonExact(readFileSync(path.join(REAL_DATA, "summary-1.json"), "utf8"));
    assert.deepEqual(summary, expected);
    assert.equal(field(summary, "node", "nodeName"), NODE);
    assert.equal((field(summary, "pods") as unknown[]).length, 17);
  });

  test("summary follows the server's changes (updateSummary keeps uint64 digits)", async () => {
    h.server.updateSummary((s) => {
      (s.node as { fs: Record<string, unknown> }).fs.inodesFree = `${EXACT_INT_PREFIX}18446744073709551610`;
    });
    const summary = await h.node.summary();
    assert.equal(exactInteger(field(summary, "node", "fs", "inodesFree")), 18446744073709551610n);
  });

  test("kubeletConfig: GET …/proxy/configz, the inner kubeletconfig object", async () => {
    h.server.clearRequests();
    const config = await h.node.kubeletConfig();
    assert.equal(h.server.requests[0]?.path, `/api/v1/nodes/${NODE}/proxy/configz`);
    assert.deepEqual(field(config, "evictionHard"), {
      "memory.available": "250Mi",
      "nodefs.available": "10%",
      "nodefs.inodesFree": "5%",
    });
    assert.equal(field(config, "evictionPressureTransitionPeriod"), "30s");
    assert.equal(field(config, "kubeletconfig"), undefined);
    assert.equal(field(config, "kind"), undefined);
  });

  test("kubeletConfig rejects a configz without a kubeletconfig object", async () => {
    h.server.fail({
      path: `/api/v1/nodes/${NODE}/proxy/configz`,
      times: 1,
      response: { kind: "status", status: 200, body: { other: {} } },
    });
    await assert.rejects(
      h.node.kubeletConfig(),
      (e: unknown) =>
        e instanceof KubeApiError && e.code === "kube-bad-response" && /kubeletconfig/.test(e.message),
    );
  });

  test("node: GET /api/v1/nodes/NODE, a v1 Node with addresses and capacity", async () => {
    h.server.clearRequests();
    const node = await h.node.node();
    assert.equal(h.server.requests[0]?.path, `/api/v1/nodes/${NODE}`);
    assert.equal(field(node, "kind"), "Node");
    assert.deepEqual(field(node, "status", "addresses"), [
      { type: "InternalIP", address: "127.0.0.1" },
      { type: "Hostname", address: NODE },
    ]);
    assert.equal(field(node, "status", "capacity", "memory"), "8024304Ki");
  });

  test("listPods: the node's pods by fieldSelector, with the list's resourceVersion", async () => {
    const other = structuredClone(h.server.pod("scraper", "e2e-statefulset-0"));
    assert.ok(other);
    other.metadata.name = "elsewhere";
    other.metadata.uid = "0d7c2a8e-0000-4000-8000-000000000001";
    other.spec.nodeName = "another-node";
    h.server.addPod(other);
    h.server.clearRequests();

    const list = await h.node.listPods();
    const request = h.server.requests[0];
    assert.equal(request?.path, "/api/v1/pods");
    assert.deepEqual(request.query, { fieldSelector: `spec.nodeName=${NODE}` });
    const names = list.items.map((p) => field(p, "metadata", "name"));
    const fixture = JSON.parse(readFileSync(path.join(REAL_DATA, "pods-1.json"), "utf8")) as {
      items: unknown[];
    };
    assert.deepEqual(names.toSorted(), fixture.items.map((p) => field(p, "metadata", "name")).toSorted());
    assert.ok(!names.includes("elsewhere"));
    assert.equal(list.resourceVersion, h.server.state.resourceVersion);
  });
});

describe("Summary integers stay exact (summary-5.json: inodesFree = 2^64 - 1)", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ server: { summaryFile: "summary-5.json" } });
  });
  after(() => h.close());

  test("18446744073709551615 keeps every digit on node fs and imagefs", async () => {
    const summary = await h.node.summary();
    assert.equal(exactInteger(field(summary, "node", "fs", "inodesFree")), 18446744073709551615n);
    assert.equal(
      exactInteger(field(summary, "node", "runtime", "imageFs", "inodesFree")),
      18446744073709551615n,
    );
    // What JSON.parse would have made of it: the test would catch an adapter that used it.
    const lossy = JSON.parse(readFileSync(path.join(REAL_DATA, "summary-5.json"), "utf8")) as unknown;
    assert.notEqual(BigInt(field(lossy, "node", "fs", "inodesFree") as number), 18446744073709551615n);
  });
});

describe("reads straight from the kubelet (source: kubelet, TLS)", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ server: { tls: true }, connect: { source: "kubelet" } });
  });
  after(() => h.close());

  test("connect reads the Node, then Summary and configz come from https://InternalIP:port", async () => {
    assert.equal(h.node.describe, `kubelet https://127.0.0.1:${h.server.port}`);
    const first = h.server.requests[0];
    assert.equal(first?.path, `/api/v1/nodes/${NODE}`);
    h.server.clearRequests();

    const summary = await h.node.summary();
    const config = await h.node.kubeletConfig();
    assert.deepEqual(
      h.server.requests.map((r) => [r.method, r.path, r.authorization]),
      [
        ["GET", "/stats/summary", `Bearer ${h.server.token}`],
        ["GET", "/configz", `Bearer ${h.server.token}`],
      ],
    );
    assert.equal(field(summary, "node", "nodeName"), NODE);
    assert.equal(field(config, "evictionPressureTransitionPeriod"), "30s");
  });

  test("pods and writes still go to the API server", async () => {
    h.server.clearRequests();
    await h.node.listPods();
    assert.equal(h.server.requests[0]?.path, "/api/v1/pods");
  });

  test("an explicit kubeletPort wins over the port the Node reports", async () => {
    const original = structuredClone(h.server.state.node);
    const node = structuredClone(original) as {
      status: { daemonEndpoints: { kubeletEndpoint: { Port: number } } };
    };
    node.status.daemonEndpoints.kubeletEndpoint.Port = 10250;
    h.server.setNode(node);
    try {
      const viaOption = await h.connect({ kubeletPort: h.server.port });
      assert.equal(viaOption.describe, `kubelet https://127.0.0.1:${h.server.port}`);
      const viaNode = await h.connect();
      assert.equal(viaNode.describe, "kubelet https://127.0.0.1:10250");
    } finally {
      h.server.setNode(original);
    }
  });

  test("without an InternalIP the Hostname is used", async () => {
    const original = structuredClone(h.server.state.node);
    const node = structuredClone(original) as { status: Record<string, unknown> };
    node.status.addresses = [{ type: "Hostname", address: "localhost" }];
    h.server.setNode(node);
    try {
      const port = await h.connect();
      assert.equal(port.describe, `kubelet https://localhost:${h.server.port}`);
      assert.equal(field(await port.summary(), "node", "nodeName"), NODE);
    } finally {
      h.server.setNode(original);
    }
  });

  test("a Node with neither InternalIP nor Hostname fails to connect, saying so", async () => {
    const original = structuredClone(h.server.state.node);
    const node = structuredClone(original) as { status: Record<string, unknown> };
    node.status.addresses = [{ type: "ExternalIP", address: "203.0.113.7" }];
    h.server.setNode(node);
    try {
      await assert.rejects(
        h.connect(),
        /no InternalIP or Hostname address \(status\.addresses: ExternalIP\)/,
      );
    } finally {
      h.server.setNode(original);
    }
  });

  test("the kubelet's certificate is checked: an unrelated CA is refused at once, with a hint", async () => {
    const port = await h.connect({ kubeletCa: path.join(TLS_FIXTURES, "other-ca.crt") });
    h.server.clearRequests();
    await assert.rejects(port.summary(), (e: unknown) => {
      assert.ok(e instanceof KubeApiError);
      assert.equal(e.code, "kube-tls");
      assert.match(
        e.message,
        new RegExp(`^cannot reach the kubelet at https://127\\.0\\.0\\.1:${h.server.port}: `),
      );
      assert.match(e.hint ?? "", /--kubelet-ca/);
      assert.equal(e.transient, false);
      return true;
    });
    // Refused during the handshake: no request reached the server, and no retry was made.
    assert.equal(h.server.requests.length, 0);
  });

  test("kubeletCa naming the right CA, or kubeletInsecureTls, are accepted", async () => {
    const withCa = await h.connect({ kubeletCa: path.join(TLS_FIXTURES, "ca.crt") });
    assert.equal(field(await withCa.summary(), "node", "nodeName"), NODE);
    const insecure = await h.connect({
      kubeletCa: path.join(TLS_FIXTURES, "other-ca.crt"),
      kubeletInsecureTls: true,
    });
    assert.equal(field(await insecure.summary(), "node", "nodeName"), NODE);
  });

  test("a kubelet 403 (plain text) names the nodes/stats permission", async () => {
    h.server.fail({ path: "/stats/summary", times: 1, response: { kind: "status", status: 403 } });
    await assert.rejects(h.node.summary(), (e: unknown) => {
      assert.ok(e instanceof KubeApiError);
      assert.equal(e.code, "kube-forbidden");
      assert.match(
        e.message,
        /^403 Forbidden from GET \/stats\/summary: Forbidden \(user=system:serviceaccount:kube-system:evictd, verb=get, resource=nodes, subresource=stats\)/,
      );
      assert.match(e.message, /needs permission to get nodes\/stats \(cluster scope\)/);
      return true;
    });
    h.server.fail({ path: "/configz", times: 1, response: { kind: "status", status: 403 } });
    await assert.rejects(h.node.kubeletConfig(), /needs permission to get nodes\/proxy \(cluster scope\)/);
  });
});
