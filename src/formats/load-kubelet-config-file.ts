/**
 * Reads a kubelet config file (YAML, or JSON) into a plain value plus a position lookup, so that
 * problems the pure core finds later point at file:line:column. Bad input comes back as issues.
 */
import type { Issue } from "../core/issues.js";
import type { PositionLookup } from "./position-lookup.js";
import { parseStructuredText, readStructuredFile, type StructuredFile } from "./structured-file.js";

export type ConfigFileResult =
  | {
      readonly ok: true;
      readonly value: unknown;
      readonly positions: PositionLookup;
      readonly warnings: Issue[];
    }
  | { readonly ok: false; readonly issues: Issue[] };

export interface ConfigFileOptions {
  /** Issue path given to whole-file problems; default `config`. */
  readonly issuePath?: string;
}

function toConfigResult(f: StructuredFile): ConfigFileResult {
  return f.ok ? { ok: true, value: f.value, positions: f.positions, warnings: f.warnings } : f;
}

/** Parses config text already in memory; `file` names it in issues. */
export function parseKubeletConfigText(
  text: string,
  file: string,
  options: ConfigFileOptions = {},
): ConfigFileResult {
  return toConfigResult(parseStructuredText(text, file, options.issuePath ?? "config"));
}

/** Reads and parses a kubelet config file; `path` is also the `file` named in issues. */
export async function loadKubeletConfigFile(
  path: string,
  options: ConfigFileOptions = {},
): Promise<ConfigFileResult> {
  return toConfigResult(await readStructuredFile(path, options.issuePath ?? "config"));
}
