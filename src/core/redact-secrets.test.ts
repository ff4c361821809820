import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { redactConfigLine, scrubSecrets } from "./redact-secrets.js";

describe("redactConfigLine", () => {
  const cases: { name: string; line: string; want: string }[] = [
    { name: "a bearer token", line: "    token: abcdef.0123456789abcdef", want: "    token: <redacted>" },
    { name: "a password", line: "    password: hunter2-Pa55", want: "    password: <redacted>" },
    { name: "a quoted password", line: '    password: "hunter2 Pa55"', want: "    password: <redacted>" },
    {
      name: "an unclosed quote",
      line: '    token: "abcdef.0123456789abcdef',
      want: "    token: <redacted>",
    },
    {
      name: "client-key-data",
      line: "    client-key-data: LS0tLS1CRUdJTg==",
      want: "    client-key-data: <redacted>",
    },
    {
      name: "client-certificate-data",
      line: "    client-certificate-data: LS0tLS1CRUdJTg==",
      want: "    client-certificate-data: <redacted>",
    },
    {
      name: "an auth provider's refresh-token",
      line: "        refresh-token: r3fr3sh",
      want: "        refresh-token: <redacted>",
    },
    {
      name: "an auth provider's id-token",
      line: "        id-token: eyJhbGciOi.x.y",
      want: "        id-token: <redacted>",
    },
    {
      name: "client-secret",
      line: "        client-secret: s3cr3t",
      want: "        client-secret: <redacted>",
    },
    {
      name: "access-token",
      line: "        access-token: ya29.abc",
      want: "        access-token: <redacted>",
    },
    {
      name: "an exec env value",
      line: "        value: AKIAIOSFODNN7EXAMPLE",
      want: "        value: <redacted>",
    },
    {
      name: "an exec env name stays",
      line: "      - name: AWS_SECRET_ACCESS_KEY",
      want: "      - name: AWS_SECRET_ACCESS_KEY",
    },
    {
      name: "exec args inline",
      line: '        args: ["--token", "t0k3n"]',
      want: "        args: <redacted>",
    },
    { name: "an exec arg as a list item", line: "        - --token=t0k3n", want: "        - <redacted>" },
    { name: "an unknown key's value", line: "   bad: indentation", want: "   bad: <redacted>" },
    {
      name: "a harmless key keeps its value",
      line: "    server: https://10.0.0.1:6443",
      want: "    server: https://10.0.0.1:6443",
    },
    { name: "a name in a list", line: "- name: admin", want: "- name: admin" },
    { name: "a key without value", line: "  user:", want: "  user:" },
    {
      name: "a harmless key with a flow map hides it",
      line: "  user: {token: abc}",
      want: "  user: <redacted>",
    },
    {
      name: "a harmless key with a comment hides both",
      line: "  name: u # old token abc",
      want: "  name: <redacted>",
    },
    { name: "a comment line", line: "# token: abcdef.0123456789abcdef", want: "<redacted>" },
    {
      name: "a line of a block scalar (a PEM key)",
      line: "      MIIEpAIBAAKCAQEA",
      want: "      <redacted>",
    },
    {
      name: "a token written as a key",
      line: "  abcdef.0123456789abcdef: x",
      want: "  <redacted>: <redacted>",
    },
    { name: "a missing colon", line: "    token abcdef.0123456789abcdef", want: "    <redacted>" },
    { name: "a tab in the indentation", line: "\ttoken: tabsecret123", want: "→token: <redacted>" },
    {
      name: "JSON: a secret",
      line: '      "token": "abcdef.0123456789abcdef",',
      want: '      "token": <redacted>',
    },
    { name: "JSON: a harmless string", line: '      "name": "admin",', want: '      "name": "admin",' },
    { name: "JSON: an opening bracket", line: '  "users": [', want: '  "users": [' },
    { name: "JSON: a one-line object", line: '{"users": [{"user": {"token": "x"}}]}', want: "<redacted>" },
    { name: "JSON: structure only", line: "    }, {", want: "    }, {" },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.equal(redactConfigLine(c.line), c.want);
    });
  }
});

describe("scrubSecrets", () => {
  const cases: { name: string; text: string; want: string }[] = [
    { name: "YAML token", text: "10 |     token: abcdef0123", want: "10 |     token: <redacted>" },
    { name: "a kubeadm token anywhere", text: "at abcdef.0123456789abcdef here", want: "at <redacted> here" },
    { name: "JSON password", text: '{"password": "hunter2-Pa55"}', want: '{"password": <redacted>}' },
    { name: "a flag", text: "--token=t0k3n --v=2", want: "--token=<redacted> --v=2" },
    { name: "refresh-token", text: "refresh-token: r3fr3sh", want: "refresh-token: <redacted>" },
    { name: "client-key-data", text: "client-key-data: LS0tLS1C", want: "client-key-data: <redacted>" },
    {
      name: "an Authorization header",
      text: "Authorization: Bearer s3cr3t.t0k3n",
      want: "Authorization: Bearer <redacted>",
    },
    {
      name: "a JWT",
      text: "token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl rejected",
      want: "token <redacted> rejected",
    },
    {
      name: "a PEM private key",
      text: "key: -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- end",
      want: "key: -----BEGIN RSA PRIVATE KEY----- <redacted> end",
    },
    {
      name: "a password in a URL",
      text: "proxy http://bob:hunter2@proxy:3128",
      want: "proxy http://bob:<redacted>@proxy:3128",
    },
    {
      name: "ordinary messages are left alone",
      text: '401 Unauthorized from GET /api/v1/nodes/n1: check the credentials (bearer token of user "admin" in context "prod")',
      want: '401 Unauthorized from GET /api/v1/nodes/n1: check the credentials (bearer token of user "admin" in context "prod")',
    },
    {
      name: "a token file path is not a secret",
      text: "cannot read the token file /var/run/token (tokenFile: /var/run/token)",
      want: "cannot read the token file /var/run/token (tokenFile: /var/run/token)",
    },
    { name: "already redacted stays so", text: "token: <redacted>", want: "token: <redacted>" },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.equal(scrubSecrets(c.text), c.want);
    });
  }
});
