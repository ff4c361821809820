/**
 * The checks of a scenario's top-level fields other than `steps` (start, config and flags, node,
 * filesystems, evictedPods, pods, and the informational source and environment), shared by the document and the JSONL forms: a document's root and
 * a JSONL header line are checked alike.
 */
import { resolve } from "node:path";
import { buildEvictionConfig } from "../../core/config/build-eviction-config.js";
import { pathKey, type Issue, type IssueList } from "../../core/issues.js";
import type { FilesystemLayout, Pod } from "../../core/model.js";
import { decodeNodeEnvironment } from "../../core/node/decode-node-environment.js";
import { decodePodList } from "../../core/pod/decode-pod.js";
import { parseQuantity, QuantityError, quantityValue } from "../../core/quantity.js";
import { parseRfc3339 } from "../../core/time/rfc3339.js";
import type { ScenarioHeader } from "../../app/replay/scenario.js";
import { loadKubeletConfigFile } from "../load-kubelet-config-file.js";
import { locateIssues } from "../position-lookup.js";
import { isRawObject, type RawObject } from "../../core/raw/raw-object.js";
import { describeValue } from "../../core/raw/describe-value.js";
import { displayPath, type ReferencedFiles } from "./referenced-files.js";

const TOP_KEYS = new Set([
  "start",
  "config",
  "flags",
  "node",
  "filesystems",
  "evictedPods",
  "pods",
  "steps",
  "source",
  "environment",
]);
const LAYOUTS: readonly FilesystemLayout[] = ["single", "dedicated", "split"];

export interface HeaderChecks {
  /** Problems in the scenario itself, by path from its root; the caller locates them. */
  readonly issues: IssueList;
  /** Problems already located in other files (a referenced config or pods file). */
  readonly external: Issue[];
  /** Files the scenario references, resolved from its directory. */
  readonly files: ReferencedFiles;
  readonly baseDir: string;
}

/**
 * Checks every top-level field except `steps` (whose form differs: a list, or the lines after a JSONL
 * header). Returns the header when the eviction configuration could be built; other problems are in
 * `checks.issues` and `checks.external`, and the caller must not replay when any is an error.
 */
export async function loadScenarioHeader(
  root: RawObject,
  checks: HeaderChecks,
): Promise<ScenarioHeader | undefined> {
  const { issues, external, baseDir } = checks;
  for (const k of Object.keys(root)) {
    if (!TOP_KEYS.has(k))
      issues.warning(pathKey("", k), "unknown-field", `unknown field ${JSON.stringify(k)} (ignored)`);
  }

  let start = 0;
  if (root["start"] !== undefined) {
    const t = typeof root["start"] === "string" ? parseRfc3339(root["start"]) : "invalid";
    if (typeof t !== "number")
      issues.error(
        "start",
        "invalid-time",
        `expected an RFC 3339 time such as "2025-01-01T00:00:00Z", got ${describeValue(root["start"])}`,
      );
    else start = t;
  }

  // Configuration: an inline KubeletConfiguration or a path to one, then flags over it.
  let configValue: unknown;
  let configIssuesFile: string | undefined;
  let configPositions: Awaited<ReturnType<typeof loadKubeletConfigFile>> | undefined;
  if (typeof root["config"] === "string") {
    const configFile = resolve(baseDir, root["config"]);
    configIssuesFile = displayPath(configFile);
    configPositions = await loadKubeletConfigFile(configFile);
    if (!configPositions.ok) external.push(...configPositions.issues);
    else {
      configValue = configPositions.value;
      external.push(...configPositions.warnings);
    }
  } else if (root["config"] !== undefined && root["config"] !== null) {
    const inline = root["config"];
    // An inline config is a KubeletConfiguration by definition: type meta is optional here.
    configValue =
      isRawObject(inline) && inline["apiVersion"] === undefined && inline["kind"] === undefined
        ? { apiVersion: "kubelet.config.k8s.io/v1beta1", kind: "KubeletConfiguration", ...inline }
        : inline;
  }
  let flags: string[] = [];
  if (root["flags"] !== undefined) {
    if (!Array.isArray(root["flags"]) || !root["flags"].every((f) => typeof f === "string")) {
      issues.error(
        "flags",
        "type",
        `expected a list of kubelet flags such as ["--eviction-hard=memory.available<100Mi"], got ${describeValue(root["flags"])}`,
      );
    } else flags = root["flags"];
  }
  const built =
    configPositions !== undefined && !configPositions.ok
      ? undefined
      : buildEvictionConfig({
          ...(configValue !== undefined ? { config: configValue } : {}),
          configPath: "config",
          flags,
          flagsPath: "flags",
        });
  const configIssues = built === undefined ? [] : built.ok ? built.warnings : built.issues;
  if (configIssuesFile !== undefined && configPositions?.ok === true) {
    external.push(...locateIssues(configIssues, "config", configPositions.positions, configIssuesFile));
  } else {
    for (const i of configIssues) issues.items.push(i);
  }

  // Node: only the memory capacity matters (oom_score_adj).
  let nodeMemoryCapacity: bigint | undefined;
  const node = root["node"];
  if (node !== undefined && node !== null) {
    const mem =
      isRawObject(node) && isRawObject(node["status"]) && isRawObject(node["status"]["capacity"])
        ? node["status"]["capacity"]["memory"]
        : undefined;
    if (!isRawObject(node))
      issues.error("node", "type", `expected a v1 Node object, got ${describeValue(node)}`);
    else if (mem !== undefined) {
      try {
        if (typeof mem !== "string" && typeof mem !== "number")
          throw new QuantityError("expected a quantity such as 16Gi", describeValue(mem));
        nodeMemoryCapacity = quantityValue(parseQuantity(String(mem)));
      } catch (e) {
        if (!(e instanceof QuantityError)) throw e;
        issues.error(
          "node.status.capacity.memory",
          "invalid-quantity",
          `${describeValue(mem)}: ${e.message}`,
        );
      }
    }
  }

  let filesystems: FilesystemLayout | undefined;
  if (root["filesystems"] !== undefined) {
    const f = root["filesystems"];
    if (typeof f === "string" && (LAYOUTS as readonly string[]).includes(f))
      filesystems = f as FilesystemLayout;
    else
      issues.error(
        "filesystems",
        "enum",
        `expected one of single, dedicated, split, got ${describeValue(f)}`,
      );
  }
  let evictedPods: "remove" | "keep" = "remove";
  if (root["evictedPods"] !== undefined) {
    const e = root["evictedPods"];
    if (e === "remove" || e === "keep") evictedPods = e;
    else issues.error("evictedPods", "enum", `expected remove or keep, got ${describeValue(e)}`);
  }

  // Informational (where the trace was recorded): warnings at most, never a reason not to replay.
  const environment = decodeNodeEnvironment(root["environment"], "environment", issues);

  const pods = await loadPods(root["pods"], "pods", checks.files, issues);
  if (built === undefined || !built.ok) return undefined;
  const figureSources = figureSourcesOf(root["source"]);
  return {
    ...(figureSources !== undefined ? { figureSources } : {}),
    ...(environment !== undefined ? { environment } : {}),
    start,
    config: built.config,
    configSource: { document: configValue, flags },
    ...(filesystems !== undefined ? { filesystems } : {}),
    evictedPods,
    ...(nodeMemoryCapacity !== undefined ? { nodeMemoryCapacity } : {}),
    pods,
  };
}

/** `source.figures` of an imported trace: its string entries (anything else in it is not shown). */
function figureSourcesOf(source: unknown): Record<string, string> | undefined {
  if (typeof source !== "object" || source === null) return undefined;
  const figures = (source as { figures?: unknown }).figures;
  if (typeof figures !== "object" || figures === null) return undefined;
  const out = Object.fromEntries(
    Object.entries(figures).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Pods inline (a list, a PodList, or one Pod) or in a referenced file. */
async function loadPods(
  raw: unknown,
  path: string,
  files: ReferencedFiles,
  issues: IssueList,
): Promise<Pod[]> {
  if (raw === undefined || raw === null) return [];
  if (typeof raw !== "string") return decodePodList(raw, path, issues);
  let pods: Pod[] = [];
  await files.load(raw, path, (value, local) => {
    pods = decodePodList(value, path, local);
  });
  return pods;
}
