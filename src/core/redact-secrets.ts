/**
 * Keeping credentials out of what evictd prints. Two tools: `redactConfigLine` shows a line of a
 * credential file (a kubeconfig) with only its structure and the values of keys known to be
 * harmless, so an excerpt can point at a syntax error without showing a token, a password or a
 * key; `scrubSecrets` replaces what looks like a credential in free text (an error from a library,
 * a stack trace), the last line of defence at the CLI's error boundary.
 */

/** The placeholder every hidden value becomes. */
export const REDACTED = "<redacted>";

/**
 * Kubeconfig keys whose values are names, URLs, paths or switches, never credentials. Every other
 * key's value is hidden: token, password, client-key-data, auth-provider config (refresh-token,
 * id-token, client-secret, access-token), exec args and env values, and any key evictd does not know.
 */
const HARMLESS_KEYS = new Set([
  "apiversion",
  "kind",
  "clusters",
  "cluster",
  "contexts",
  "context",
  "users",
  "user",
  "name",
  "namespace",
  "server",
  "current-context",
  "preferences",
  "extensions",
  "extension",
  "insecure-skip-tls-verify",
  "tls-server-name",
  "proxy-url",
  "disable-compression",
  "certificate-authority",
  "client-certificate",
  "client-key",
  "tokenfile",
  "token-file",
  "username",
  "as",
  "exec",
  "command",
  "env",
  "interactivemode",
  "provideclusterinfo",
  "installhint",
  "auth-provider",
  "config",
]);

// `  - "key": rest` / `key: rest`: indentation and list dashes, the key (plain or quoted), the colon.
const KEY_LINE = /^((?:[\s→]|-(?=\s))*)("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_.\-/]+)(\s*:)(?=\s|$)(.*)$/u;
// A value that is one plain scalar or one quoted string, with an optional JSON comma; or an opening bracket.
const SIMPLE_VALUE = /^\s*(?:"(?:[^"\\]|\\.)*"|'[^']*'|[^\s{}[\],#&*!|>'"%@`][^{}[\],#]*?|[[{])?\s*,?\s*$/u;
// Keys shown even when unknown (a typo such as `sever` is worth seeing): words of letters and
// dashes. Anything else (digits, dots: a token or a password typed as a key) is hidden.
const PLAIN_KEY = /^[A-Za-z][A-Za-z_-]{0,39}$/u;
// Lines of brackets, commas and dashes only (the scaffolding of JSON and flow YAML).
const STRUCTURE_ONLY = /^[\s{}[\],-]*$/u;

function unquote(key: string): string {
  return key.startsWith('"') || key.startsWith("'") ? key.slice(1, -1) : key;
}

/** Whether a key's value may be shown (case-insensitive; quotes around the key are ignored). */
export function isHarmlessKey(key: string): boolean {
  return HARMLESS_KEYS.has(unquote(key).toLowerCase());
}

/**
 * One line of a YAML or JSON credential file, safe to print: indentation, list dashes, brackets
 * and keys stay; a value stays only when its key is harmless and the value is a single scalar;
 * anything else (a secret's value, a comment, a line of a block scalar such as a PEM key, text that
 * is not a `key: value` line) becomes `<redacted>`. Tabs are shown as `→`.
 */
export function redactConfigLine(line: string): string {
  const visible = line.replaceAll("\t", "→");
  if (STRUCTURE_ONLY.test(line)) return visible;
  const m = KEY_LINE.exec(visible);
  if (m === null) {
    const indent = /^(?:[\s→]|-(?=\s))*/u.exec(visible)?.[0] ?? "";
    return `${indent}${REDACTED}`;
  }
  const [, lead = "", written = "", colon = "", rest = ""] = m;
  // A key that is not a plain name may itself be a misplaced secret (a token typed as a key).
  const key = isHarmlessKey(written) || PLAIN_KEY.test(unquote(written)) ? written : REDACTED;
  if (rest.trim() === "") return `${lead}${key}${colon}`;
  if (isHarmlessKey(written) && SIMPLE_VALUE.test(rest)) return `${lead}${key}${colon}${rest}`;
  return `${lead}${key}${colon} ${REDACTED}`;
}

/** Key names whose values are credentials wherever they appear in text. */
const SECRET_KEY = String.raw`[A-Za-z0-9_-]*(?:token|password|passwd|secret|key-data|certificate-data|authority-data|credential|api[-_]?key)`;

const SCRUBBERS: readonly [RegExp, string][] = [
  // PEM private keys, whole.
  [
    /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/gu,
    `-----BEGIN $1PRIVATE KEY----- ${REDACTED}`,
  ],
  // `Authorization: Bearer xyz`, `Basic xyz`.
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gu, `$1 ${REDACTED}`],
  // key: value, key=value, "key": "value" for credential-like keys (YAML, JSON, flags, env).
  [
    new RegExp(
      String.raw`(["']?\b${SECRET_KEY}["']?\s*[:=]\s*)("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s,;}\]"']+)`,
      "giu",
    ),
    `$1${REDACTED}`,
  ],
  // JSON Web Tokens (service-account tokens, OIDC id-tokens).
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/gu, REDACTED],
  // kubeadm bootstrap tokens: [a-z0-9]{6}.[a-z0-9]{16}.
  [/\b[a-z0-9]{6}\.[a-z0-9]{16}\b/gu, REDACTED],
  // Passwords in URLs: scheme://user:password@host.
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/giu, `$1${REDACTED}@`],
];

/** `text` with anything that looks like a credential replaced by `<redacted>`. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SCRUBBERS) out = out.replace(pattern, replacement);
  return out;
}
