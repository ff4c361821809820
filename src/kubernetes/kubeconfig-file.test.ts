import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { AdapterError } from "../errors.js";
import { readKubeconfigFile } from "./kubeconfig-file.js";

const HEAD = [
  "apiVersion: v1",
  "kind: Config",
  "clusters:",
  "- name: c",
  "  cluster:",
  "    server: https://10.0.0.1:6443",
  "contexts:",
  "- name: x",
  "  context: {cluster: c, user: u}",
].join("\n");

describe("readKubeconfigFile", () => {
  let dir: string;
  let n = 0;
  const file = async (text: string): Promise<string> => {
    const p = path.join(dir, `config-${++n}`);
    await writeFile(p, text);
    return p;
  };
  const problem = (text: string): Promise<string> =>
    file(text).then((p) => {
      try {
        readKubeconfigFile(p);
      } catch (e) {
        assert.ok(e instanceof AdapterError && e.code === "kubeconfig", String(e));
        return e.message.replaceAll(p, "FILE");
      }
      assert.fail("no error");
    });
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "evictd-kubeconfig-file-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test("a valid file goes to client-node as JSON; token files are taken out, relative to the file", async () => {
    const p = await file(
      `${HEAD}\nusers:\n- name: u\n  user: {tokenFile: tokens/u}\n- name: v\n  user: {token-file: /abs/v, username: v}\n- name: w\n  user: {token: t}\n`,
    );
    const read = readKubeconfigFile(p);
    assert.deepEqual(
      [...read.tokenFiles],
      [
        ["u", path.join(dir, "tokens", "u")],
        ["v", "/abs/v"],
      ],
    );
    const doc = JSON.parse(read.json) as { users: { name: string; user: Record<string, unknown> }[] };
    assert.deepEqual(
      doc.users.map((u) => u.user),
      [{}, { username: "v" }, { token: "t" }],
    );
  });

  test("every problem is reported, each at its line:column with the lines around it redacted", async () => {
    const message = await problem(
      `${HEAD}\nusers:\n- name: u\n  user:\n    token: [t0k3n-one]\n    password: {p: s3cr3t-two}\n    exec: {command: aws, env: [{name: K, value: 7}]}\n`,
    );
    assert.equal(
      message,
      [
        "kubeconfig FILE is not usable (3 problems; secret values are shown as <redacted>):",
        "  FILE:13:5: users[0].user.token must be a string, not a list",
        "      11 | - name: u",
        "      12 |   user:",
        "    > 13 |     token: <redacted>",
        "      14 |     password: <redacted>",
        "  FILE:14:5: users[0].user.password must be a string, not a mapping",
        "      12 |   user:",
        "      13 |     token: <redacted>",
        "    > 14 |     password: <redacted>",
        "      15 |     exec: <redacted>",
        "  FILE:15:42: users[0].user.exec.env[0].value must be a string, not a number",
        "      13 |     token: <redacted>",
        "      14 |     password: <redacted>",
        "    > 15 |     exec: <redacted>",
      ].join("\n"),
    );
  });

  const cases: { name: string; text: string; want: RegExp; secret?: string }[] = [
    {
      name: "a YAML message that would quote the file",
      text: "- a\nhunter2-Pa55: 1\n",
      want: /FILE:2:1: Unexpected scalar at node end\n/,
      secret: "hunter2",
    },
    { name: "an empty file", text: "", want: /^cannot read kubeconfig FILE: the file is empty$/ },
    { name: "comments only", text: "# nothing\n", want: /FILE: the file holds no YAML document$/ },
    {
      name: "two documents",
      text: `${HEAD}\n---\nkind: Config\n`,
      want: /FILE:11:1: the file holds 2 YAML documents/,
    },
    {
      name: "not a mapping",
      text: "- a\n- b\n",
      want: /FILE:1:1: the document must be a mapping .*, not a list/,
    },
    {
      name: "a cluster without a server",
      text: "clusters:\n- name: c\n  cluster: {certificate-authority: ca.crt}\n",
      want: /FILE:3:3: clusters\[0\]\.cluster\.server is missing/,
    },
    {
      name: "a context without a cluster, an entry without a name",
      text: "contexts:\n- context: {user: u}\n",
      want: /contexts\[0\]\.name is missing[\s\S]*contexts\[0\]\.context\.cluster is missing/,
    },
    {
      name: "a token with a line break (a block scalar)",
      text: `${HEAD}\nusers:\n- name: u\n  user:\n    token: |\n      s3cr3t-t0k3n\n`,
      want: /users\[0\]\.user\.token holds spaces, tabs or line breaks, which a bearer token cannot/,
      secret: "s3cr3t",
    },
    {
      name: "a boolean as a string",
      text: `clusters:\n- name: c\n  cluster: {server: "https://x", insecure-skip-tls-verify: "yes"}\n`,
      want: /\["insecure-skip-tls-verify"\] must be true or false, not a string/,
    },
  ];
  for (const c of cases) {
    test(`problem: ${c.name}`, async () => {
      const message = await problem(c.text);
      assert.match(message, c.want);
      if (c.secret !== undefined) assert.ok(!message.includes(c.secret), message);
    });
  }

  test("a file that cannot be read is named with the reason", () => {
    assert.throws(
      () => readKubeconfigFile(dir),
      (e: unknown) =>
        e instanceof AdapterError &&
        e.message === `cannot read kubeconfig ${dir}: is a directory, not a file`,
    );
  });
});
