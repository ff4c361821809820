/**
 * One file of the manifest directory to Pods: YAML or JSON, one Pod, a `---`-separated stream of
 * them, or a PodList; every problem an issue naming the file and, where known, the line. What one
 * file can cost is bounded here (size, aliases, problems kept, nothing thrown, nothing written to
 * stderr) and by the thread the daemon parses in (time, memory, stack: manifest-read-thread.ts).
 */
import { stat } from "node:fs/promises";
import { Composer, LineCounter, Parser, isScalar, type Document, type Tags } from "yaml";
import { IssueList, pathIndex, pathKey, type Issue } from "../core/issues.js";
import { decodePod } from "../core/pod/decode-pod.js";
import { createPositionLookup, locateIssues, type PositionLookup } from "../formats/position-lookup.js";
import { exactIntTag, parseStructuredText, readTextFile } from "../formats/structured-file.js";
import { derivedPodUid, hasExplicitUid, readPodRestartPolicy, type RunnablePod } from "./runnable-pod.js";

export interface ManifestFileResult {
  readonly file: string;
  /** The pods decoded without error, in file order. */
  readonly pods: readonly RunnablePod[];
  /** Errors (a pod with any is left out) and warnings, each naming the file; at most {@link MAX_FILE_ISSUES} and a count of the rest. */
  readonly issues: readonly Issue[];
  /**
   * The file was not read for a reason of the moment, not of its content (the parser was starved
   * of CPU): it is read again at the next scan even when it has not changed since.
   */
  readonly retry?: boolean;
}

/** DNS-1123 label: what the API server requires of container and volume names, and of namespaces. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** DNS-1123 subdomain: what the API server requires of a pod's name (at most 253 characters). */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * The most problems one file reports: the first ones, then a count of the rest. A file of garbage
 * has one problem per line (hundreds of thousands), and each is kept in /status and compared on
 * every scan; the first few say what is wrong with the file.
 */
export const MAX_FILE_ISSUES = 20;

/**
 * The problems of one file, kept up to {@link MAX_FILE_ISSUES}: those past it are only counted, and
 * never located (finding an issue's line is the dearest part of reporting it).
 */
class FileIssues {
  readonly kept: Issue[] = [];
  #moreErrors = 0;
  #moreWarnings = 0;

  /** Whether another issue would still be kept. */
  get room(): boolean {
    return this.kept.length < MAX_FILE_ISSUES;
  }

  add(issue: Issue): void {
    if (this.room) this.kept.push(issue);
    else if (issue.severity === "error") this.#moreErrors++;
    else this.#moreWarnings++;
  }

  /** Counts an issue past the cap without building it. */
  skip(severity: Issue["severity"]): void {
    if (severity === "error") this.#moreErrors++;
    else this.#moreWarnings++;
  }

  get hasErrors(): boolean {
    return this.#moreErrors > 0 || this.kept.some((i) => i.severity === "error");
  }

  /** The kept issues, and one more counting the rest when there were more. */
  issues(file: string): Issue[] {
    const more = this.#moreErrors + this.#moreWarnings;
    if (more === 0) return this.kept;
    const count = new Intl.NumberFormat("en-US").format(more);
    return [
      ...this.kept,
      {
        severity: this.#moreErrors > 0 ? "error" : "warning",
        path: "",
        code: "more-problems",
        message: `… and ${count} more problem${more === 1 ? "" : "s"} (the first ${MAX_FILE_ISSUES} are listed)`,
        file,
      },
    ];
  }
}

/**
 * yaml's alias limit (its `maxAliasCount`: an anchor's nodes times the aliases to it): a manifest
 * may share an env list or a resources block among its containers, a "billion laughs" file of
 * anchors nested in anchors is refused before it is expanded.
 */
const MAX_ALIAS_COUNT = 1000;

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
function yamlDocuments(text: string, file: string, issues: FileIssues): RawDocument[] {
  const lineCounter = new LineCounter();
  const composer = new Composer({
    merge: true,
    prettyErrors: false,
    // yaml's warnings (a key that is itself a collection) would go to process.emitWarning, i.e. to
    // the daemon's stderr; the file's problems are reported as issues instead.
    logLevel: "silent",
    customTags: (tags: Tags): Tags => [exactIntTag, ...tags],
  });
  const out: RawDocument[] = [];
  // parseAllDocuments, one document at a time: an empty one (a file of `---` lines) is dropped as
  // soon as it is made instead of being held with all the others.
  for (const doc of composer.compose(new Parser(lineCounter.addNewLine).parse(text))) {
    if (isEmptyDocument(doc)) continue;
    const errors = doc.errors.filter((e) => e.code !== "DUPLICATE_KEY");
    if (errors.length > 0) {
      for (const e of errors) {
        if (!issues.room) {
          issues.skip("error");
          continue;
        }
        const pos = lineCounter.linePos(e.pos[0]);
        issues.add({
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
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (e) {
      // An alias bomb ("Excessive alias count indicates a resource exhaustion attack"), or a
      // document nested deeper than the stack: that document is not read.
      const start = doc.contents?.range[0];
      const pos = start === undefined ? undefined : lineCounter.linePos(start);
      issues.add({
        severity: "error",
        path: "",
        code: "yaml-invalid",
        message: `the document cannot be read: ${e instanceof Error ? e.message : String(e)}`,
        file,
        ...(pos !== undefined ? { line: pos.line, column: pos.col } : {}),
      });
      continue;
    }
    out.push({ value, positions: createPositionLookup(doc, lineCounter) });
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

/**
 * The API server's rules for names, which `run` applies itself since nothing validated its manifests
 * before: the pod's name and namespace (they are in every log line, /status and the terminal's
 * view of them), container and volume names (they become cgroup, file and environment variable
 * names). `replay` decodes pods with the same core decoder but does not apply them (a scenario may
 * name pods as it likes; the terminal table escapes what it prints), nor does the cluster companion
 * (the API server has already).
 */
function checkNames(pod: RunnablePod, path: string, issues: IssueList): void {
  const metadata = pathKey(path, "metadata");
  if (!DNS_SUBDOMAIN.test(pod.name) || pod.name.length > 253) {
    issues.error(
      pathKey(metadata, "name"),
      "invalid-name",
      `pod name ${JSON.stringify(pod.name)} must be a DNS-1123 subdomain: at most 253 of [a-z0-9-.], each dot-separated part starting and ending with a letter or digit`,
    );
  }
  if (!DNS_LABEL.test(pod.namespace) || pod.namespace.length > 63) {
    issues.error(
      pathKey(metadata, "namespace"),
      "invalid-name",
      `namespace ${JSON.stringify(pod.namespace)} must be a DNS-1123 label: at most 63 of [a-z0-9-], starting and ending with a letter or digit`,
    );
  }
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
  // One at a time: a pod may have hundreds of thousands of problems, more than a call's arguments.
  for (const issue of local.items) issues.items.push(issue);
  if (pod === undefined || local.hasErrors) return undefined;
  return { ...pod, uid: hasExplicitUid(raw) ? pod.uid : derivedPodUid(pod.key), restartPolicy };
}

/** Decodes the documents of one file; pods repeating a UID already seen in the file are errors. */
function decodeDocuments(docs: readonly RawDocument[], file: string, issues: FileIssues): RunnablePod[] {
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
    // Only the issues kept are located.
    let located = 0;
    for (const issue of list.items) {
      if (issues.room) located++;
      else issues.skip(issue.severity);
    }
    for (const issue of locateIssues(list.items.slice(0, located), "", doc.positions, file))
      issues.add(issue);
  }
  return pods;
}

/** Parses manifest text already in memory; `file` labels the issues. Never throws. */
export function parseManifestText(text: string, file: string): ManifestFileResult {
  const issues = new FileIssues();
  try {
    const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
    const first = body.trimStart()[0];
    let docs: RawDocument[];
    if (first === "{" || first === "[") {
      // JSON (or flow YAML): one document; the shared reader keeps big integers exact.
      const parsed = parseStructuredText(body, file, "");
      if (!parsed.ok) {
        for (const issue of parsed.issues) issues.add(issue);
        return { file, pods: [], issues: issues.issues(file) };
      }
      for (const issue of parsed.warnings) issues.add(issue);
      docs = [{ value: parsed.value, positions: parsed.positions }];
    } else {
      docs = yamlDocuments(body, file, issues);
      if (docs.length === 0 && issues.kept.length === 0) {
        issues.add({
          severity: "error",
          path: "",
          code: "empty-file",
          message: "the file holds no Pod",
          file,
        });
      }
    }
    const pods = decodeDocuments(docs, file, issues);
    return { file, pods, issues: issues.issues(file) };
  } catch (e) {
    // A file nested deeper than the stack, or anything else the parser did not foresee: that file
    // is not read, and says why.
    issues.add({
      severity: "error",
      path: "",
      code: "manifest-unreadable",
      message: `the file cannot be read: ${e instanceof Error ? e.message : String(e)}`,
      file,
    });
    return { file, pods: [], issues: issues.issues(file) };
  }
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
