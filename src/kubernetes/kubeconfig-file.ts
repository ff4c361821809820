/**
 * Reading a kubeconfig file before @kubernetes/client-node does: its own YAML error quotes the
 * lines around the problem in full, tokens and passwords included, and its checks are few. Here the
 * file is parsed with `yaml`, every problem (syntax, duplicate keys, a field of the wrong type) is
 * collected with its line:column, and the message shows the lines around each with every value but
 * harmless ones (names, URLs, paths) replaced (core/redact-secrets). Only a document that passed
 * goes on to client-node, as JSON text, so no text of the file reaches its errors.
 *
 * `tokenFile` (kubectl's name) and `token-file` are taken out here: client-node ignores the first
 * and reads the second once, at load, with an error that names no user. evictd reads the file
 * itself (kubernetes/token-file), before the first request and again every minute.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { LineCounter, parseAllDocuments, type Document } from "yaml";
import { isRawObject, type RawObject } from "../core/raw/raw-object.js";
import { redactConfigLine, scrubSecrets } from "../core/redact-secrets.js";
import { AdapterError } from "../errors.js";
import { createPositionLookup, type PositionLookup } from "../formats/position-lookup.js";
import { decodeText, describeReadError } from "../formats/structured-file.js";

/** A kubeconfig that passed the checks. */
export interface KubeconfigFile {
  /** The document as client-node's `loadFromString` takes it (JSON is YAML), token files taken out. */
  readonly json: string;
  /** The token file of each user that names one (absolute: relative paths are from the file's directory). */
  readonly tokenFiles: ReadonlyMap<string, string>;
}

interface Problem {
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
}

/** Problems listed in one error; more are counted. */
const MAX_PROBLEMS = 10;

/**
 * Reads and checks `file`; throws AdapterError `kubeconfig` listing every problem, each with its
 * line:column and a redacted excerpt.
 */
export function readKubeconfigFile(file: string): KubeconfigFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new AdapterError(
      "kubeconfig",
      `cannot read kubeconfig ${file}: ${describeReadError(error).message}`,
      {
        cause: error,
      },
    );
  }
  const decoded = decodeText(bytes, file, "kubeconfig");
  if (!decoded.ok) {
    const reason = decoded.issues.map((i) => i.message).join("; ");
    throw new AdapterError("kubeconfig", `cannot read kubeconfig ${file}: ${reason}`);
  }
  const text = decoded.text.startsWith("\uFEFF") ? decoded.text.slice(1) : decoded.text;
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { prettyErrors: false, uniqueKeys: true, lineCounter });
  const problems: Problem[] = [];
  const written = docs.filter((d) => d.contents !== null);
  for (const doc of docs) {
    for (const e of doc.errors) {
      const at = lineCounter.linePos(e.pos[0]);
      problems.push({ message: yamlProblem(e.code, e.message), line: at.line, column: at.col });
    }
  }
  const first = written[0];
  if (problems.length === 0 && first === undefined)
    problems.push({ message: "the file holds no YAML document" });
  if (problems.length === 0 && written.length > 1) {
    const at = lineCounter.linePos(written[1]?.contents?.range[0] ?? 0);
    problems.push({
      message: `the file holds ${written.length} YAML documents; expected one`,
      line: at.line,
      column: at.col,
    });
  }
  let value: unknown;
  if (problems.length === 0 && first !== undefined) {
    try {
      value = first.toJS({ maxAliasCount: 100 });
    } catch (error) {
      problems.push({ message: scrubSecrets(error instanceof Error ? error.message : String(error)) });
    }
  }
  if (problems.length === 0 && first !== undefined)
    problems.push(...shapeProblems(value, first, lineCounter));
  if (problems.length > 0) throw new AdapterError("kubeconfig", describeProblems(file, text, problems));

  const root = value as Record<string, unknown>;
  const tokenFiles = new Map<string, string>();
  const users = Array.isArray(root.users) ? (root.users as RawObject[]) : [];
  const dir = path.dirname(file);
  const cleanUsers = users.map((entry) => {
    const user = isRawObject(entry.user) ? entry.user : undefined;
    const named = user?.tokenFile ?? user?.["token-file"];
    if (user === undefined || typeof named !== "string" || named === "") return entry;
    tokenFiles.set(String(entry.name), path.resolve(dir, named));
    const { tokenFile: _kubectl, "token-file": _clientNode, ...rest } = user;
    return { ...entry, user: rest };
  });
  return {
    json: JSON.stringify({ ...root, ...(users.length > 0 ? { users: cleanUsers } : {}) }),
    tokenFiles,
  };
}

/**
 * A YAML error in words that quote nothing of the file: some of the library's messages end with
 * the offending text (`Unexpected scalar token in YAML stream: "hunter2"`).
 */
function yamlProblem(code: string, message: string): string {
  switch (code) {
    case "DUPLICATE_KEY":
      return "a key appears twice in one mapping (keys must be unique)";
    case "TAB_AS_INDENT":
      return "a tab in the indentation (YAML indents with spaces)";
    case "MISSING_CHAR":
      return message.includes("quote") ? "a quoted string is not closed" : message;
    case "BAD_DQ_ESCAPE":
      return "an invalid escape sequence in a double-quoted string";
    case "TAG_RESOLVE_FAILED":
      return "an unknown YAML tag";
    case "BAD_SCALAR_START":
      return "a plain value starts with a character YAML reserves (quote it)";
    default:
      // Drop a quoted or trailing piece of the source: `...: "text"`, `...characters: text`.
      return scrubSecrets(message.replace(/:\s.*$/su, "").replace(/"[^"]*"/gu, "…"));
  }
}

/** The message: the file, then each problem at its line:column with the lines around it, redacted. */
function describeProblems(file: string, text: string, problems: readonly Problem[]): string {
  const lines = text.split(/\r?\n/u);
  const shown = problems.slice(0, MAX_PROBLEMS);
  const out = [
    `kubeconfig ${file} is not usable (${problems.length} problem${problems.length === 1 ? "" : "s"}; secret values are shown as <redacted>):`,
  ];
  for (const p of shown) {
    const where = p.line === undefined ? file : `${file}:${p.line}:${p.column ?? 1}`;
    out.push(`  ${where}: ${p.message}`);
    if (p.line === undefined) continue;
    const from = Math.max(1, p.line - 2);
    const to = Math.min(lines.length, p.line + 1);
    const width = String(to).length;
    for (let n = from; n <= to; n++) {
      const line = lines[n - 1] ?? "";
      if (n > p.line && line.trim() === "") continue;
      out.push(`    ${n === p.line ? ">" : " "} ${String(n).padStart(width)} | ${redactConfigLine(line)}`);
    }
  }
  if (problems.length > shown.length) out.push(`  and ${problems.length - shown.length} more`);
  return out.join("\n");
}

/** What a value is, never what it says. */
function kindOf(v: unknown): string {
  if (v === null || v === undefined) return "empty";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "boolean") return "true/false";
  return `a ${typeof v}`;
}

type FieldKind = "string" | "boolean" | "mapping" | "list";

/** The fields client-node reads, by section, with their types; others are left alone. */
const CLUSTER_FIELDS: Readonly<Record<string, FieldKind>> = {
  server: "string",
  "certificate-authority": "string",
  "certificate-authority-data": "string",
  "insecure-skip-tls-verify": "boolean",
  "tls-server-name": "string",
  "proxy-url": "string",
};
const USER_FIELDS: Readonly<Record<string, FieldKind>> = {
  token: "string",
  tokenFile: "string",
  "token-file": "string",
  username: "string",
  password: "string",
  "client-certificate": "string",
  "client-certificate-data": "string",
  "client-key": "string",
  "client-key-data": "string",
  as: "string",
  exec: "mapping",
  "auth-provider": "mapping",
};
const CONTEXT_FIELDS: Readonly<Record<string, FieldKind>> = {
  cluster: "string",
  user: "string",
  namespace: "string",
};

function segment(key: string | number): string {
  if (typeof key === "number") return `[${key}]`;
  return /^[A-Za-z_][A-Za-z0-9_]*$/u.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** Type checks of the parts client-node reads: a list where a list belongs, strings where strings do. */
function shapeProblems(value: unknown, doc: Document, lineCounter: LineCounter): Problem[] {
  const positions: PositionLookup = createPositionLookup(doc, lineCounter);
  const problems: Problem[] = [];
  const report = (at: string, message: string): void => {
    const pos = positions.locate(at.replace(/^\./u, ""));
    // `path is ...`, not `path: ...`: `token: <text>` would read as a credential to the scrubber.
    const field = at.replace(/^\./u, "");
    problems.push({
      message: field === "" ? `the document ${message}` : `${field} ${message}`,
      ...(pos ?? {}),
    });
  };
  const expect = (at: string, v: unknown, kind: FieldKind): boolean => {
    const ok =
      kind === "string"
        ? typeof v === "string"
        : kind === "boolean"
          ? typeof v === "boolean"
          : kind === "list"
            ? Array.isArray(v)
            : isRawObject(v);
    if (!ok) report(at, `must be ${kind === "boolean" ? "true or false" : `a ${kind}`}, not ${kindOf(v)}`);
    return ok;
  };
  const fields = (at: string, section: unknown, table: Readonly<Record<string, FieldKind>>): void => {
    if (!isRawObject(section)) return;
    for (const [key, kind] of Object.entries(table)) {
      if (section[key] !== undefined && section[key] !== null)
        expect(`${at}${segment(key)}`, section[key], kind);
    }
  };
  if (!isRawObject(value)) {
    report("", `must be a mapping (apiVersion, clusters, users, contexts), not ${kindOf(value)}`);
    return problems;
  }
  for (const key of ["apiVersion", "kind", "current-context"]) {
    if (value[key] !== undefined && value[key] !== null) expect(segment(key), value[key], "string");
  }
  const section = (
    name: "clusters" | "users" | "contexts",
    inner: "cluster" | "user" | "context",
    table: Readonly<Record<string, FieldKind>>,
    required: readonly string[],
  ): void => {
    const list = value[name];
    if (list === undefined || list === null || !expect(segment(name), list, "list")) return;
    (list as unknown[]).forEach((entry, i) => {
      const at = `${segment(name)}[${i}]`;
      if (!expect(at, entry, "mapping")) return;
      const e = entry as RawObject;
      if (e.name === undefined || e.name === "") report(`${at}.name`, "is missing");
      else expect(`${at}.name`, e.name, "string");
      const body = e[inner];
      if (body === undefined || body === null) {
        if (inner !== "user") report(`${at}${segment(inner)}`, "is missing");
        return;
      }
      if (!expect(`${at}${segment(inner)}`, body, "mapping")) return;
      for (const r of required) {
        const v = (body as RawObject)[r];
        if (v === undefined || v === null || v === "")
          report(`${at}${segment(inner)}${segment(r)}`, "is missing");
      }
      fields(`${at}${segment(inner)}`, body, table);
      if (inner === "user") userProblems(`${at}${segment(inner)}`, body as RawObject, expect, report);
    });
  };
  section("clusters", "cluster", CLUSTER_FIELDS, ["server"]);
  section("users", "user", USER_FIELDS, []);
  section("contexts", "context", CONTEXT_FIELDS, ["cluster"]);
  return problems;
}

/** The parts of a user that are more than strings: a usable token, the exec plugin, the auth provider. */
function userProblems(
  at: string,
  user: RawObject,
  expect: (at: string, v: unknown, kind: FieldKind) => boolean,
  report: (at: string, message: string) => void,
): void {
  // A header value cannot hold these; the request would fail with an error about the header.
  if (typeof user.token === "string" && /[\s\p{Cc}]/u.test(user.token))
    report(`${at}.token`, "holds spaces, tabs or line breaks, which a bearer token cannot");
  const exec = user.exec;
  if (isRawObject(exec)) {
    if (typeof exec.command !== "string" || exec.command === "") report(`${at}.exec.command`, "is missing");
    if (exec.args !== undefined && exec.args !== null && expect(`${at}.exec.args`, exec.args, "list")) {
      (exec.args as unknown[]).forEach((a, i) => expect(`${at}.exec.args[${i}]`, a, "string"));
    }
    if (exec.env !== undefined && exec.env !== null && expect(`${at}.exec.env`, exec.env, "list")) {
      (exec.env as unknown[]).forEach((variable, i) => {
        if (!expect(`${at}.exec.env[${i}]`, variable, "mapping")) return;
        const v = variable as RawObject;
        expect(`${at}.exec.env[${i}].name`, v.name, "string");
        expect(`${at}.exec.env[${i}].value`, v.value, "string");
      });
    }
  }
  const provider = user["auth-provider"];
  if (isRawObject(provider)) {
    expect(`${at}["auth-provider"].name`, provider.name, "string");
    if (provider.config !== undefined && provider.config !== null)
      expect(`${at}["auth-provider"].config`, provider.config, "mapping");
  }
}
