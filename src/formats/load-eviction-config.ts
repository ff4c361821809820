/**
 * The eviction settings of a KubeletConfiguration file and kubelet flags, as the kubelet would
 * resolve them: read the file (YAML or JSON), build the configuration with the pure core, and point
 * every problem at file:line:column. One way for every command that takes `--config` or a config
 * file (check-config, explain, watch, record); unusable input is an {@link InputError}.
 */
import { buildEvictionConfig } from "../core/config/build-eviction-config.js";
import type { Issue } from "../core/issues.js";
import type { EvictionConfig } from "../core/model.js";
import { nodeFileEvidence } from "../core/node/looks-like-node-file.js";
import { InputError } from "../errors.js";
import { loadKubeletConfigFile } from "./load-kubelet-config-file.js";
import { locateIssues } from "./position-lookup.js";

/** A usable eviction configuration, with what it was built from. */
export interface LoadedEvictionConfig {
  readonly config: EvictionConfig;
  /** The file's KubeletConfiguration as parsed, or undefined without a file (flags only). */
  readonly document: unknown;
  /** Problems that do not stop the kubelet (file structure and settings), located in the file. */
  readonly warnings: readonly Issue[];
}

/**
 * Reads `file` (when given) and builds the eviction configuration from it and `flags`. Issues about
 * the file are under the path `config` with the file's positions; issues about flags under `flags`.
 * Throws {@link InputError} with every error (and the warnings) when the file cannot be read or the
 * settings are unusable.
 */
export async function loadEvictionConfig(
  file: string | undefined,
  flags: readonly string[],
): Promise<LoadedEvictionConfig> {
  let document: unknown;
  const warnings: Issue[] = [];
  let locate = (issues: readonly Issue[]): Issue[] => [...issues];
  if (file !== undefined) {
    const loaded = await loadKubeletConfigFile(file);
    if (!loaded.ok) throw new InputError(loaded.issues);
    // A node file read as a KubeletConfiguration gives the kubelet's defaults, not its own settings.
    const evidence = nodeFileEvidence(loaded.value);
    if (evidence !== undefined)
      throw new InputError([
        {
          severity: "error",
          path: "config",
          code: "node-file",
          file,
          message: `this looks like an evictd run node file (${evidence}), not a KubeletConfiguration: check it with \`evictd check-config --node ${file}\`; its eviction settings are its config field`,
        },
      ]);
    document = loaded.value;
    warnings.push(...loaded.warnings);
    locate = (issues) => locateIssues(issues, "config", loaded.positions, file);
  }
  const built = buildEvictionConfig({
    ...(document !== undefined ? { config: document } : {}),
    configPath: "config",
    flags,
    flagsPath: "flags",
  });
  if (!built.ok) throw new InputError([...locate(built.issues), ...warnings]);
  warnings.push(...locate(built.warnings));
  return { config: built.config, document, warnings };
}
