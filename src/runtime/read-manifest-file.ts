/**
 * One file of the manifest directory to Pods: YAML or JSON, one Pod, a `---`-separated stream of
 * them, or a PodList; every problem an issue naming the file and, where known, the line.
 */
import { stat } from "node:fs/promises";
import { LineCounter, isScalar, parseAllDocuments, type Document, type Tags } from "yaml";
import { IssueList, pathIndex, pathKey, type Issue } from "../core/issues.js";
import { decodePod } from "../core/pod/decode-pod.js";
import { createPositionLookup, locateIssues, type PositionLookup } from "../formats/position-lookup.js";
import { exactIntTag, parseStructuredText, readTextFile } from "../formats/structured-file.js";
import { derivedPodUid, hasExplicitUid, readPodRestartPolicy, type RunnablePod } from "./runnable-pod.js";

export interface ManifestFileResult {
  readonly file: string;
  /** The pods decoded without error, in file order. */
  readonly pods: readonly RunnablePod[];
  /** Errors (a pod with any is left out) and warnings, each naming the file. */
  readonly issues: readonly Issue[];
}

/** DNS-1123 label: what the API server requires of container and volume names. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

interface RawDocument {
  readonly value: unknown;
  readonly positions: PositionLookup;
}

function isEmptyDocument(doc: Document): boolean {
  const c = doc.contents;
  // A trailing `---` yields an implicit, zero-length null document.
  return c === null || (isScalar(c) && c.value === null && c.range?.[0] === c.range?.[2]);
}

/** The documents of a YAML stream; documents with syntax errors become issues instead. */
function yamlDocuments(text: string, file: string, issues: Issue[]): RawDocument[] {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, {
    lineCounter,
    merge: true,
    prettyErrors: false,
    customTags: (tags: Tags): Tags => [exactIntTag, ...tags],
  });
  const out: RawDocument[] = [];
  for (const doc of Array.isArray(docs) ? docs : []) {
    if (isEmptyDocument(doc)) continue;
    const errors = doc.errors.filter((e) => e.code !== "DUPLICATE_KEY");
    if (errors.length > 0) {
      for (const e of errors) {
        const pos = lineCounter.linePos(e.pos[0]);
        issues.push({
          severity: "error",
          path: "",
          code: `yaml-${e.code.toLowerCase().replaceAll("_", "-")}`,
          message: e.message,
          file,
          line: pos.line,
          column: pos.col,
        });
      }
      continue;
    }
    out.push({ value: doc.toJS({ maxAliasCount: 1000 }), positions: createPositionLookup(doc, lineCounter) });
  }
  return out;
}

/** The raw pods of a document: a bare Pod, an array of them, or a PodList / List. */
function rawItems(value: unknown): { items: readonly unknown[]; path: string } {
  if (Array.isArray(value)) return { items: value as unknown[], path: "" };
  if (typeof value === "object" && value !== null) {
    const obj = value as Record<string, unknown>;
    const kind = obj["kind"];
    const listy =
      kind === "PodList" ||
      kind === "List" ||
      (kind === undefined && Array.isArray(obj["items"]) && obj["spec"] === undefined);
    if (listy)
      return { items: Array.isArray(obj["items"]) ? (obj["items"] as unknown[]) : [], path: "items" };
  }
  return { items: [value], path: "" };
}

/** Container and volume names become cgroup, file and environment variable names: the API's rules apply. */
function checkNames(pod: RunnablePod, path: string, issues: IssueList): void {
  const spec = pathKey(path, "spec");
  const check = (list: readonly { name: string }[], key: string, what: string): void => {
    list.forEach((item, i) => {
      if (!DNS_LABEL.test(item.name) || item.name.length > 63) {
        issues.error(
          pathKey(pathIndex(pathKey(spec, key), i), "name"),
          "invalid-name",
          `${what} name ${JSON.stringify(item.name)} must be a DNS-1123 label: at most 63 of [a-z0-9-], starting and ending with a letter or digit`,
        );
      }
    });
  };
  check(pod.containers, "containers", "container");
  check(pod.initContainers, "initContainers", "init container");
  check(pod.volumes, "volumes", "volume");
}

/** Decodes one raw pod: the model's decoder, then restart policy, name rules and a stable UID. */
function decodeRunnablePod(raw: unknown, path: string, issues: IssueList): RunnablePod | undefined {
  const local = new IssueList();
  const pod = decodePod(raw, path, local);
  const restartPolicy = readPodRestartPolicy(raw, path, local);
  if (pod !== undefined) checkNames(pod, path, local);
  issues.items.push(...local.items);
  if (pod === undefined || local.hasErrors) return undefined;
  return { ...pod, uid: hasExplicitUid(raw) ? pod.uid : derivedPodUid(pod.key), restartPolicy };
}

/** Decodes the documents of one file; pods repeating a UID already seen in the file are errors. */
function decodeDocuments(docs: readonly RawDocument[], file: string, issues: Issue[]): RunnablePod[] {
  const pods: RunnablePod[] = [];
  const seen = new Map<string, string>();
  for (const doc of docs) {
    const list = new IssueList();
    const { items, path } = rawItems(doc.value);
    items.forEach((item, i) => {
      const at = path === "" && items.length === 1 && !Array.isArray(doc.value) ? "" : pathIndex(path, i);
      const pod = decodeRunnablePod(item, at, list);
      if (pod === undefined) return;
      const earlier = seen.get(pod.uid);
      if (earlier !== undefined) {
        list.error(
          at,
          "duplicate-pod",
          `pod ${pod.key} (uid ${pod.uid}) is already defined in this file as ${earlier}`,
        );
        return;
      }
      seen.set(pod.uid, pod.key);
      pods.push(pod);
    });
    issues.push(...locateIssues(list.items, "", doc.positions, file));
  }
  return pods;
}

/** Parses manifest text already in memory; `file` labels the issues. */
export function parseManifestText(text: string, file: string): ManifestFileResult {
  const issues: Issue[] = [];
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const first = body.trimStart()[0];
  let docs: RawDocument[];
  if (first === "{" || first === "[") {
    // JSON (or flow YAML): one document; the shared reader keeps big integers exact.
    const parsed = parseStructuredText(body, file, "");
    if (!parsed.ok) return { file, pods: [], issues: parsed.issues };
    issues.push(...parsed.warnings);
    docs = [{ value: parsed.value, positions: parsed.positions }];
  } else {
    docs = yamlDocuments(body, file, issues);
    if (docs.length === 0 && issues.length === 0) {
      issues.push({
        severity: "error",
        path: "",
        code: "empty-file",
        message: "the file holds no Pod",
        file,
      });
    }
  }
  const pods = decodeDocuments(docs, file, issues);
  return { file, pods, issues };
}

/**
 * The largest manifest file read: the API server's limit on one object in etcd (1.5 MiB). Anything
 * larger is not a Pod manifest (a log, an archive dropped in the wrong directory) and is not read.
 */
export const MAX_MANIFEST_BYTES = 1536 * 1024;

/**
 * The longest issue message kept. A parser quotes the offending line, and a file that is not YAML
 * may be one 10 MB line: the message names the file and the problem, it does not carry the file.
 */
export const MAX_ISSUE_MESSAGE = 400;

function boundedIssue(issue: Issue): Issue {
  if (issue.message.length <= MAX_ISSUE_MESSAGE) return issue;
  const cut = issue.message.length - MAX_ISSUE_MESSAGE;
  return { ...issue, message: `${issue.message.slice(0, MAX_ISSUE_MESSAGE)}… (${cut} more characters)` };
}

/** Reads and decodes one manifest file; never throws for bad input or an unreadable file. */
export async function readManifestFile(file: string): Promise<ManifestFileResult> {
  try {
    const { size } = await stat(file);
    if (size > MAX_MANIFEST_BYTES) {
      const message = `the file is ${size} bytes, more than a Pod manifest may be (${MAX_MANIFEST_BYTES} bytes, the API server's object limit): not read`;
      return {
        file,
        pods: [],
        issues: [{ severity: "error", path: "", code: "file-too-large", message, file }],
      };
    }
  } catch {
    // readTextFile says why it cannot be read.
  }
  const read = await readTextFile(file, "");
  if (!read.ok) return { file, pods: [], issues: read.issues.map(boundedIssue) };
  const result = parseManifestText(read.text, file);
  return { ...result, issues: result.issues.map(boundedIssue) };
}
