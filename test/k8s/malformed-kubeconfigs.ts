/**
 * Kubeconfig files that are broken in the ways people break them (indentation, tabs, an unclosed
 * quote, invalid JSON, a key twice, a field of the wrong type), each holding credentials of every
 * kind a kubeconfig carries, so a test can check that no error shows any of them.
 */

/** Credentials planted in the files; none may appear in anything evictd prints. */
export const SECRETS = {
  token: "abcdef.0123456789abcdef",
  password: "hunter2-Pa55",
  clientKeyData: "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB",
  refreshToken: "1//0refresh-Tok3n-XYZ",
  idToken: "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJlLXNlY3JldA",
  clientSecret: "cl1ent-s3cret-QRS",
  accessToken: "ya29.access-T0ken-UVW",
  execEnvValue: "AKIA-env-Secret-987",
  execArg: "arg-Secret-654",
} as const;

/** Pieces of the secrets long enough to be recognised if printed cut or re-quoted. */
export const SECRET_FRAGMENTS: readonly string[] = [
  ...Object.values(SECRETS),
  "0123456789abcdef",
  "hunter2",
  "Pa55",
  "LS0tLS1CRUdJ",
  "refresh-Tok3n",
  "c2lnbmF0dXJl",
  "s3cret",
  "access-T0ken",
  "env-Secret",
  "arg-Secret",
];

/** A broken kubeconfig: its text, and where and what the error must say. */
export interface MalformedKubeconfig {
  readonly name: string;
  readonly text: string;
  /** `line:column` the error must name. */
  readonly at: string;
  /** What the problem line must say (after the position). */
  readonly problem: RegExp;
}

const S = SECRETS;

/** The head of a kubeconfig for `server`: a cluster and a context for user "admin". */
function head(server: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    "current-context: ctx",
    "clusters:",
    "- name: c",
    "  cluster:",
    `    server: ${server}`,
    "    insecure-skip-tls-verify: true",
    "contexts:",
    "- name: ctx",
    "  context:",
    "    cluster: c",
    "    user: admin",
  ].join("\n");
}

/** Every malformation, for a kubeconfig pointing at `server` (line numbers count head()'s 13 lines). */
export function malformedKubeconfigs(server: string): MalformedKubeconfig[] {
  const h = head(server);
  return [
    {
      name: "bad indentation after a token and a password",
      text: `${h}\nusers:\n- name: admin\n  user:\n    token: ${S.token}\n    password: ${S.password}\n   username: admin\n`,
      at: "19:1",
      problem: /^All mapping items must start at the same column$/,
    },
    {
      name: "a tab in the indentation of a client key",
      text: `${h}\nusers:\n- name: admin\n  user:\n\tclient-key-data: ${S.clientKeyData}\n    token: ${S.token}\n`,
      at: "17:1",
      problem: /a tab in the indentation/,
    },
    {
      name: "an unclosed quote around a token",
      text: `${h}\nusers:\n- name: admin\n  user:\n    token: "${S.token}\n    password: ${S.password}\n`,
      at: "19:1",
      problem: /a quoted string is not closed/,
    },
    {
      name: "invalid JSON (a missing comma between a token and a password)",
      text: JSON.stringify(
        {
          apiVersion: "v1",
          kind: "Config",
          "current-context": "ctx",
          clusters: [{ name: "c", cluster: { server, "insecure-skip-tls-verify": true } }],
          contexts: [{ name: "ctx", context: { cluster: "c", user: "admin" } }],
          users: [{ name: "admin", user: { token: S.token, password: S.password } }],
        },
        null,
        2,
      ).replace(`"${S.token}",`, `"${S.token}"`),
      at: "28:9",
      problem: /^Missing , between flow map items$/,
    },
    {
      name: "a key twice (token)",
      text: `${h}\nusers:\n- name: admin\n  user:\n    token: ${S.token}\n    token: ${S.password}\n`,
      at: "18:5",
      problem: /a key appears twice/,
    },
    {
      name: "users as a mapping instead of a list",
      text: `${h}\nusers:\n  name: admin\n  user:\n    token: ${S.token}\n    password: ${S.password}\n`,
      at: "14:1",
      problem: /^users must be a list, not a mapping$/,
    },
    {
      name: "a token as a list and a password as a mapping",
      text: `${h}\nusers:\n- name: admin\n  user:\n    token: [${S.token}]\n    password: {value: ${S.password}}\n`,
      at: "17:5",
      problem: /^users\[0\]\.user\.token must be a string, not a list$/,
    },
    {
      name: "an auth provider's tokens in an unclosed flow mapping",
      text: `${h}\nusers:\n- name: admin\n  user:\n    auth-provider:\n      name: oidc\n      config: {refresh-token: ${S.refreshToken}, id-token: ${S.idToken}, client-secret: ${S.clientSecret}, access-token: ${S.accessToken}\n`,
      at: "20:1",
      problem: /^Flow map in block collection must be sufficiently indented and end with a \}$/,
    },
    {
      name: "an exec plugin's env value and args, badly indented",
      text: `${h}\nusers:\n- name: admin\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: aws\n      args: ["--token", "${S.execArg}"]\n      env:\n      - name: AWS_SECRET_ACCESS_KEY\n        value: ${S.execEnvValue}\n       interactiveMode: Never\n`,
      at: "24:1",
      problem: /^Sequence item without - indicator$/,
    },
    {
      name: "an exec env value of the wrong type",
      text: `${h}\nusers:\n- name: admin\n  user:\n    exec:\n      command: aws\n      args: ["--token", "${S.execArg}"]\n      env:\n      - name: AWS_SECRET_ACCESS_KEY\n        value: [${S.execEnvValue}]\n`,
      at: "22:9",
      problem: /^users\[0\]\.user\.exec\.env\[0\]\.value must be a string, not a list$/,
    },
    {
      name: "a client key as a block scalar, then a key indented too far",
      text: `${h}\nusers:\n- name: admin\n  user:\n    client-key-data: |\n      ${S.clientKeyData}\n      ${S.clientKeyData}\n     username: admin\n    password: ${S.password}\n`,
      at: "20:1",
      problem: /^All mapping items must start at the same column$/,
    },
    {
      name: "a password after a top-level list (the YAML error would quote it)",
      text: `- ${S.token}\npassword: ${S.password}\n`,
      at: "2:1",
      problem: /^Unexpected scalar at node end$/,
    },
  ];
}
