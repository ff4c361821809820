// How the adapter finds the cluster and its credentials, end to end against the fake API server:
// context selection, KUBECONFIG, a TLS API server with its CA, and the in-cluster service account
// (client-node's loadFromCluster with a path prefix pointing at a fake service-account directory).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { AdapterError } from "../../src/errors.js";
import { connectClusterNode } from "../../src/kubernetes/connect-cluster-node.js";
import { KubeApiError } from "../../src/kubernetes/kube-api-error.js";
import {
  startFakeApiServer,
  writeKubeconfig,
  type FakeApiServer,
} from "../harness/fake-api-server/fake-api-server.js";

const NODE = "datagen-1-35";
const noWait = (): Promise<void> => Promise.resolve();

/** Runs `body` with environment variables set (undefined: unset), restoring them afterwards. */
async function withEnv(vars: Record<string, string | undefined>, body: () => Promise<void>): Promise<void> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>): void => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  try {
    await body();
  } finally {
    apply(saved);
  }
}

describe("kubeconfig and contexts (plain-http server)", () => {
  let server: FakeApiServer;
  let dir: string;
  before(async () => {
    server = await startFakeApiServer();
    dir = await mkdtemp(path.join(os.tmpdir(), "evictd-kubeconfig-"));
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("the current context is used by default; --context picks another", async () => {
    const file = await writeKubeconfig(
      path.join(dir, "two-contexts"),
      [server.context("stale", "revoked-token"), server.context("good")],
      "stale",
    );
    const byDefault = await connectClusterNode({ nodeName: NODE, kubeconfig: file, sleep: noWait });
    await assert.rejects(
      byDefault.summary(),
      (e: unknown) =>
        e instanceof KubeApiError && e.code === "kube-unauthorized" && /in context "stale"/.test(e.message),
    );

    server.clearRequests();
    const chosen = await connectClusterNode({
      nodeName: NODE,
      kubeconfig: file,
      context: "good",
      sleep: noWait,
    });
    const summary = (await chosen.summary()) as { node: { nodeName: string } };
    assert.equal(summary.node.nodeName, NODE);
    assert.deepEqual(
      server.requests.map((r) => r.authorization),
      [`Bearer ${server.token}`],
    );
  });

  test("an unknown context is a kubeconfig error naming the ones there are", async () => {
    const file = await writeKubeconfig(path.join(dir, "one"), [server.context("only")]);
    await assert.rejects(
      connectClusterNode({ nodeName: NODE, kubeconfig: file, context: "prod" }),
      (e: unknown) =>
        e instanceof AdapterError &&
        e.code === "kubeconfig" &&
        e.message === `context "prod" is not in kubeconfig ${file} (it has "only")`,
    );
  });

  test("KUBECONFIG's files are merged, each read and checked by evictd (a broken one is named)", async () => {
    const first = await writeKubeconfig(path.join(dir, "merge-a"), [server.context("a", "revoked-token")]);
    const second = await writeKubeconfig(path.join(dir, "merge-b"), [server.context("b")]);
    const both = [first, second].join(path.delimiter);
    await withEnv({ KUBECONFIG: both }, async () => {
      // The first file's current context wins; the second file's contexts are there to pick.
      const node = await connectClusterNode({ nodeName: NODE, context: "b", sleep: noWait });
      assert.equal(((await node.node()) as { metadata: { name: string } }).metadata.name, NODE);
    });
    const broken = path.join(dir, "merge-broken");
    await writeFile(broken, "users:\n- name: x\n  user:\n    token: s3cr3t-merge\n   bad: 1\n");
    await withEnv({ KUBECONFIG: [first, broken].join(path.delimiter) }, async () => {
      await assert.rejects(
        connectClusterNode({ nodeName: NODE }),
        (e: unknown) =>
          e instanceof AdapterError &&
          e.message.startsWith(`kubeconfig ${broken} is not usable`) &&
          e.message.includes(`${broken}:5:1: `) &&
          !e.message.includes("s3cr3t"),
      );
    });
  });

  test("KUBECONFIG is honoured when no file is given", async () => {
    const file = await writeKubeconfig(path.join(dir, "from-env"), [server.context("env-context")]);
    await withEnv({ KUBECONFIG: file }, async () => {
      const node = await connectClusterNode({ nodeName: NODE, sleep: noWait });
      assert.equal(((await node.node()) as { metadata: { name: string } }).metadata.name, NODE);
    });
  });

  test("exec credential plugins run through client-node: their token is sent; a failing plugin is reported", async () => {
    const execConfig = async (name: string, script: string): Promise<string> => {
      const file = path.join(dir, name);
      await writeFile(
        file,
        stringify({
          apiVersion: "v1",
          kind: "Config",
          clusters: [{ name: "c", cluster: { server: server.url, "insecure-skip-tls-verify": true } }],
          users: [
            {
              name: "plugin-user",
              user: {
                exec: {
                  apiVersion: "client.authentication.k8s.io/v1beta1",
                  command: process.execPath,
                  args: ["-e", script],
                  interactiveMode: "Never",
                },
              },
            },
          ],
          contexts: [{ name: "ctx", context: { cluster: "c", user: "plugin-user" } }],
          "current-context": "ctx",
        }),
      );
      return file;
    };
    const credential = JSON.stringify({
      apiVersion: "client.authentication.k8s.io/v1beta1",
      kind: "ExecCredential",
      status: { token: server.token },
    });
    const good = await execConfig("exec-good", `process.stdout.write(${JSON.stringify(credential)})`);
    const viaPlugin = await connectClusterNode({ nodeName: NODE, kubeconfig: good, sleep: noWait });
    server.clearRequests();
    await viaPlugin.node();
    assert.equal(server.requests[0]?.authorization, `Bearer ${server.token}`);

    const bad = await execConfig("exec-bad", "process.stderr.write('token expired'); process.exit(1)");
    const broken = await connectClusterNode({ nodeName: NODE, kubeconfig: bad, sleep: noWait });
    server.clearRequests();
    await assert.rejects(broken.summary(), (e: unknown) => {
      assert.ok(e instanceof AdapterError);
      assert.equal(e.code, "kube-credentials");
      assert.match(
        e.message,
        /^cannot get credentials \(exec plugin .* of user "plugin-user" in context "ctx"\): /,
      );
      return true;
    });
    const outcome = await broken.deletePod({ namespace: "scraper", name: "x", uid: "u" }, 0);
    assert.equal(outcome.kind, "refused");
    assert.ok(
      outcome.kind === "refused" &&
        outcome.status === undefined &&
        outcome.message.startsWith("cannot get credentials"),
    );
    assert.equal(server.requests.length, 0, "nothing is sent without credentials");
  });

  test("a plain-http server without insecure-skip-tls-verify is refused before any request", async () => {
    const file = await writeKubeconfig(path.join(dir, "http"), [
      { name: "h", server: server.url, token: server.token },
    ]);
    await assert.rejects(connectClusterNode({ nodeName: NODE, kubeconfig: file }), (e: unknown) => {
      assert.ok(e instanceof AdapterError);
      assert.equal(e.code, "kubeconfig");
      assert.match(e.message, /uses plain HTTP/);
      assert.match(e.hint ?? "", /insecure-skip-tls-verify/);
      return true;
    });
  });
});

describe("a TLS API server", () => {
  let server: FakeApiServer;
  let dir: string;
  before(async () => {
    server = await startFakeApiServer({ tls: true });
    dir = await mkdtemp(path.join(os.tmpdir(), "evictd-kubeconfig-tls-"));
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("with certificate-authority from the kubeconfig the server is trusted", async () => {
    const file = await server.writeKubeconfig(path.join(dir, "with-ca"));
    const node = await connectClusterNode({ nodeName: NODE, kubeconfig: file, sleep: noWait });
    assert.equal(node.describe, `API server proxy ${server.url}/api/v1/nodes/${NODE}/proxy`);
    assert.equal(((await node.summary()) as { node: { nodeName: string } }).node.nodeName, NODE);
  });

  test("calls share one kept-alive connection: one TLS handshake, not one per request", async () => {
    const file = await server.writeKubeconfig(path.join(dir, "keep-alive"));
    const node = await connectClusterNode({ nodeName: NODE, kubeconfig: file, sleep: noWait });
    await node.summary();
    const before = server.connectionsAccepted;
    server.clearRequests();
    for (let i = 0; i < 5; i++) {
      await node.summary();
      await node.listPods();
    }
    assert.equal(server.requests.length, 10, "every call reached the server");
    // Before: a new agent from client-node for each call, so a connection and a handshake each.
    assert.equal(server.connectionsAccepted - before, 0, "no new connection after the first call");
  });

  test("without it the certificate is refused: kube-tls, no retries, a hint", async () => {
    const file = await writeKubeconfig(path.join(dir, "no-ca"), [
      { name: "no-ca", server: server.url, token: server.token },
    ]);
    const node = await connectClusterNode({ nodeName: NODE, kubeconfig: file, sleep: noWait });
    server.clearRequests();
    await assert.rejects(node.summary(), (e: unknown) => {
      assert.ok(e instanceof KubeApiError);
      assert.equal(e.code, "kube-tls");
      assert.match(
        e.message,
        new RegExp(`^cannot reach the API server at ${server.url.replace(/\./g, "\\.")}: `),
      );
      assert.match(e.hint ?? "", /certificate-authority/);
      return true;
    });
    assert.equal(server.requests.length, 0);
  });

  test("in-cluster: the service-account token and CA from the pod's secret directory", async () => {
    const prefix = path.join(dir, "pod-root");
    const saDir = path.join(prefix, "var/run/secrets/kubernetes.io/serviceaccount");
    await mkdir(saDir, { recursive: true });
    await writeFile(path.join(saDir, "token"), server.token);
    await writeFile(path.join(saDir, "namespace"), "kube-system");
    await copyFile(server.caFile, path.join(saDir, "ca.crt"));
    await withEnv(
      { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: String(server.port) },
      async () => {
        const node = await connectClusterNode({
          nodeName: NODE,
          inCluster: true,
          inClusterPathPrefix: prefix,
          sleep: noWait,
        });
        server.clearRequests();
        await node.listPods();
        assert.equal(server.requests[0]?.authorization, `Bearer ${server.token}`);

        server.fail({ path: "/api/v1/pods", times: 1, response: { kind: "status", status: 403 } });
        await assert.rejects(node.listPods(), (e: unknown) => {
          assert.ok(e instanceof KubeApiError);
          assert.ok(e.message.includes(`(credentials: the service account token in ${saDir})`), e.message);
          return true;
        });
      },
    );
  });

  test("in-cluster without the service-account token: named before any request", async () => {
    const prefix = path.join(dir, "pod-without-token");
    await mkdir(path.join(prefix, "var/run/secrets/kubernetes.io/serviceaccount"), { recursive: true });
    server.clearRequests();
    await withEnv(
      { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: String(server.port) },
      async () => {
        await assert.rejects(
          connectClusterNode({ nodeName: NODE, inCluster: true, inClusterPathPrefix: prefix }),
          (e: unknown) =>
            e instanceof AdapterError &&
            e.code === "kube-credentials" &&
            e.message ===
              `cannot read the token file ${prefix}/var/run/secrets/kubernetes.io/serviceaccount/token of user "inClusterUser" in the in-cluster configuration: no such file`,
        );
      },
    );
    assert.equal(server.requests.length, 0);
  });

  test("in-cluster outside a pod is a kubeconfig error", async () => {
    await withEnv({ KUBERNETES_SERVICE_HOST: undefined, KUBERNETES_SERVICE_PORT: undefined }, async () => {
      await assert.rejects(
        connectClusterNode({ nodeName: NODE, inCluster: true }),
        (e: unknown) =>
          e instanceof AdapterError && e.code === "kubeconfig" && /KUBERNETES_SERVICE_HOST/.test(e.message),
      );
    });
  });
});
