import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { AdapterError } from "../errors.js";
import { loadKubeConfig } from "./load-kube-config.js";

/** A kubeconfig with the given users (each in a context and cluster of the same name). */
function kubeconfig(
  users: Record<string, Record<string, unknown>>,
  current?: string,
  server = "https://10.0.0.1:6443",
): string {
  const names = Object.keys(users);
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: names.map((name) => ({ name, cluster: { server } })),
    users: names.map((name) => ({ name, user: users[name] })),
    contexts: names.map((name) => ({ name, context: { cluster: name, user: name } })),
    ...(current === undefined ? {} : { "current-context": current }),
  });
}

describe("loadKubeConfig", () => {
  let dir: string;
  let n = 0;
  const file = async (text: string): Promise<string> => {
    const p = path.join(dir, `config-${++n}`);
    await writeFile(p, text);
    return p;
  };
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "evictd-load-kubeconfig-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test("the current context, its server, and whose credentials", async () => {
    const p = await file(kubeconfig({ admin: { token: "t" }, viewer: { token: "v" } }, "admin"));
    const loaded = loadKubeConfig({ kubeconfig: p });
    assert.equal(loaded.contextName, "admin");
    assert.equal(loaded.server, "https://10.0.0.1:6443");
    assert.equal(loaded.identity, 'bearer token of user "admin" in context "admin"');
    assert.equal(loadKubeConfig({ kubeconfig: p, context: "viewer" }).contextName, "viewer");
  });

  const identities: { user: Record<string, unknown>; want: string }[] = [
    {
      user: {
        exec: { apiVersion: "client.authentication.k8s.io/v1", command: "aws", args: ["eks", "get-token"] },
      },
      want: 'exec plugin aws of user "u" in context "u"',
    },
    {
      user: { "client-certificate-data": "Zm9v", "client-key-data": "YmFy" },
      want: 'client certificate of user "u" in context "u"',
    },
    { user: { username: "alice", password: "x" }, want: 'basic auth (alice) of user "u" in context "u"' },
    { user: {}, want: 'user "u" in context "u"' },
  ];
  for (const c of identities) {
    test(`identity: ${c.want}`, async () => {
      const p = await file(kubeconfig({ u: c.user }, "u"));
      assert.equal(loadKubeConfig({ kubeconfig: p }).identity, c.want);
    });
  }

  const problems: { name: string; text?: string; context?: string; want: RegExp }[] = [
    { name: "a file that does not exist", want: /^cannot read kubeconfig .*missing: no such file$/ },
    {
      name: "an unknown context",
      text: kubeconfig({ a: {}, b: {} }, "a"),
      context: "c",
      want: /^context "c" is not in kubeconfig .* \(it has "a", "b"\)$/,
    },
    { name: "no current context", text: kubeconfig({ a: {} }), want: /sets no current context$/ },
    {
      name: "a current context that is not defined",
      text: kubeconfig({ a: {} }, "gone"),
      want: /the current context "gone" is not defined/,
    },
    {
      name: "plain http without insecure-skip-tls-verify",
      text: kubeconfig({ a: {} }, "a", "http://127.0.0.1:8080"),
      want: /uses plain HTTP \(http:\/\/127\.0\.0\.1:8080\)/,
    },
    {
      name: "broken YAML",
      text: "clusters: [\n",
      want: /^kubeconfig .*config-\d+ is not usable \(1 problem;.*\n {2}.*config-\d+:2:1: Flow sequence/,
    },
  ];
  for (const c of problems) {
    test(`kubeconfig error: ${c.name}`, async () => {
      const p = c.text === undefined ? path.join(dir, "missing") : await file(c.text);
      assert.throws(
        () => loadKubeConfig({ kubeconfig: p, ...(c.context === undefined ? {} : { context: c.context }) }),
        (e: unknown) => e instanceof AdapterError && e.code === "kubeconfig" && c.want.test(e.message),
      );
    });
  }
});
