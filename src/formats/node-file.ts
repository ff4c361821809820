/**
 * Reads an `evictd run` node file (YAML or JSON) into a {@link NodeSpec}: its kubelet config file,
 * when it names one, is read too; directories are resolved against the node file's directory; and
 * every problem is collected and located (file:line:column in the node file, or the config file).
 */
import { hostname } from "node:os";
import { dirname, resolve } from "node:path";
import type { Issue } from "../core/issues.js";
import { parseNodeSpec, type NodeSpec } from "../core/node/node-spec.js";
import { InputError } from "../errors.js";
import { loadKubeletConfigFile } from "./load-kubelet-config-file.js";
import { locateIssues, type PositionLookup } from "./position-lookup.js";
import { readStructuredFile } from "./structured-file.js";

/** Reads and checks the node file; throws an {@link InputError} with every problem located, else returns the warnings located. */
export async function loadNodeSpec(file: string): Promise<{ spec: NodeSpec; warnings: Issue[] }> {
  const parsed = await readStructuredFile(file, "node");
  if (!parsed.ok) throw new InputError(parsed.issues);
  const raw = parsed.value as Record<string, unknown>;
  let configFromFile: unknown;
  const external: Issue[] = [];
  let configFile: string | undefined;
  let configPositions: PositionLookup | undefined;
  if (typeof raw["config"] === "string") {
    configFile = resolve(dirname(file), raw["config"]);
    const loaded = await loadKubeletConfigFile(configFile);
    if (!loaded.ok) throw new InputError(loaded.issues);
    configFromFile = loaded.value;
    configPositions = loaded.positions;
    external.push(...loaded.warnings);
  }
  // Relative directories in the node file are relative to the file.
  const base = dirname(resolve(file));
  const rel = (k: string): void => {
    if (typeof raw[k] === "string") raw[k] = resolve(base, raw[k]);
  };
  rel("stateDir");
  rel("imagefsDir");
  rel("manifestDir");
  const r = parseNodeSpec({ raw, configFromFile, hostname: hostname() });
  const issues = r.ok ? r.warnings : r.issues;
  const located = [
    ...locateIssues(
      issues.filter((i) => !i.path.startsWith("config") || configFile === undefined),
      "",
      parsed.positions,
      file,
    ),
    ...(configFile !== undefined && configPositions !== undefined
      ? locateIssues(
          issues.filter((i) => i.path.startsWith("config")),
          "config",
          configPositions,
          configFile,
        )
      : []),
    ...external,
  ];
  if (!r.ok) throw new InputError(located);
  return { spec: r.spec, warnings: located };
}
