/**
 * The configurations a what-if replay or a fleet comparison tries, read from the command line:
 * KubeletConfiguration files (`--config`), `--set FIELD=VALUE` changes, and `--sweep
 * FIELD=V1,V2,...` lists over a base, each variant built and checked before any trace is read.
 * Every problem in any of them is collected (file:line:column for a file, the option as written for
 * a setting) and thrown together as one {@link InputError}.
 */
import { basename, extname } from "node:path";
import { reservedMemory } from "../core/config/allocatable-memory.js";
import { buildConfigVariant } from "../core/config/build-config-variant.js";
import {
  parseConfigSetting,
  parseConfigSweep,
  sweepCombinations,
  type ConfigSetting,
  type ConfigSweep,
} from "../core/config/config-settings.js";
import type { Issue } from "../core/issues.js";
import type { EvictionConfig } from "../core/model.js";
import { nodeFileEvidence } from "../core/node/looks-like-node-file.js";
import { InputError } from "../errors.js";
import { loadKubeletConfigFile } from "./load-kubelet-config-file.js";
import { locateIssues } from "./position-lookup.js";

/** Where a variant's KubeletConfiguration comes from. */
export type VariantBase =
  /** A file, read once. */
  | { readonly kind: "file"; readonly file: string; readonly document: unknown }
  /** Each trace's own recorded configuration (and its kubelet flags). */
  | { readonly kind: "recorded" };

/** One configuration to replay under: a base and settings over it. */
export interface ConfigVariant {
  /** A short unique label: the file's name, `recorded`, plus each setting (`base evictionHard.memory.available=1Gi`). */
  readonly name: string;
  readonly base: VariantBase;
  readonly settings: readonly ConfigSetting[];
  /** The configuration, when the base is a file (the recorded one is built per trace). */
  readonly config?: EvictionConfig;
  /** The KubeletConfiguration the variant is, when the base is a file. */
  readonly document?: unknown;
}

export interface VariantOptions {
  /** KubeletConfiguration files, each a variant (or a base of the sweeps, with `base`). */
  readonly configs?: readonly string[];
  /** A base for the sweeps: a file, or `recorded` (each trace's own). */
  readonly base?: string;
  /** `--set` changes, applied to every variant. */
  readonly sets?: readonly string[];
  readonly sweeps?: readonly string[];
}

const RECORDED = "recorded";

type Positions = Map<string, Parameters<typeof locateIssues>[2]>;

async function readBase(
  file: string,
  optionPath: string,
  issues: Issue[],
  positions: Positions,
): Promise<VariantBase | undefined> {
  if (file === RECORDED) return { kind: "recorded" };
  const loaded = await loadKubeletConfigFile(file);
  if (!loaded.ok) {
    issues.push(...loaded.issues);
    return undefined;
  }
  const evidence = nodeFileEvidence(loaded.value);
  if (evidence !== undefined) {
    issues.push({
      severity: "error",
      path: optionPath,
      code: "node-file",
      file,
      message: `this looks like an evictd run node file (${evidence}), not a KubeletConfiguration`,
    });
    return undefined;
  }
  issues.push(...loaded.warnings.filter((w) => w.severity === "error"));
  // Problems the core finds in the document are located when the variant is built.
  positions.set(file, loaded.positions);
  return { kind: "file", file, document: loaded.value };
}

function baseName(base: VariantBase): string {
  return base.kind === "recorded" ? RECORDED : basename(base.file, extname(base.file));
}

/**
 * The variants the options describe, each checked (a base file's variants built here; the
 * recorded base's only when a trace supplies it, see {@link buildRecordedVariant}). Throws
 * {@link InputError} with every problem. Without any option: the recorded configuration alone.
 */
export async function loadConfigVariants(options: VariantOptions): Promise<{
  readonly variants: readonly ConfigVariant[];
  readonly warnings: readonly Issue[];
}> {
  const issues: Issue[] = [];
  const warnings: Issue[] = [];
  const positions: Positions = new Map();
  const sets: ConfigSetting[] = [];
  (options.sets ?? []).forEach((text, i) => {
    const r = parseConfigSetting(text, `--set ${text}`);
    if (r.ok) sets.push(r.value);
    else issues.push(...r.issues.map((x) => ({ ...x, path: `--set[${i}] ${text}` })));
  });
  const sweeps: ConfigSweep[] = [];
  (options.sweeps ?? []).forEach((text, i) => {
    const r = parseConfigSweep(text, `--sweep[${i}] ${text}`);
    if (r.ok) sweeps.push(r.value);
    else issues.push(...r.issues);
  });
  const bases: VariantBase[] = [];
  for (const [i, file] of (options.configs ?? []).entries()) {
    const b = await readBase(file, `--config[${i}]`, issues, positions);
    if (b !== undefined) bases.push(b);
  }
  let sweepBase: VariantBase | undefined;
  if (options.base !== undefined) sweepBase = await readBase(options.base, "--base", issues, positions);
  if (sweeps.length > 0 && options.base === undefined && (options.configs ?? []).length > 0)
    issues.push({
      severity: "error",
      path: "--sweep",
      code: "sweep-base",
      message: "a sweep needs --base FILE (or --base recorded): --config files are variants of their own",
    });
  if (issues.length > 0) throw new InputError(issues);

  const variants: ConfigVariant[] = [];
  const add = (base: VariantBase, extra: readonly ConfigSetting[]): void => {
    const settings = [...sets, ...extra];
    // Each trace's own configuration with settings over it is named by the settings alone.
    const parts = settings.map((s) => s.text);
    const name =
      base.kind === "recorded" && parts.length > 0 ? parts.join(" ") : [baseName(base), ...parts].join(" ");
    variants.push({ name, base, settings });
  };
  for (const b of bases) add(b, []);
  if (sweeps.length > 0 || sweepBase !== undefined) {
    const base = sweepBase ?? { kind: "recorded" as const };
    for (const combination of sweepCombinations(sweeps)) add(base, combination);
  }
  if (variants.length === 0) add({ kind: "recorded" }, []);
  // Two variants of the same label (the same file twice, two files of one name) would be one row.
  const seen = new Map<string, number>();
  const named = variants.map((v) => {
    const n = (seen.get(v.name) ?? 0) + 1;
    seen.set(v.name, n);
    return n === 1 ? v : { ...v, name: `${v.name} (${n})` };
  });

  const built: ConfigVariant[] = [];
  for (const v of named) {
    if (v.base.kind === "recorded") {
      built.push(v);
      continue;
    }
    const r = buildConfigVariant(v.base.document, [], v.settings, settingLabel);
    const file = v.base.file;
    const locate = (list: readonly Issue[]): Issue[] => {
      const at = positions.get(file);
      return at === undefined ? [...list] : locateIssues(list, "config", at, file);
    };
    const reserved = r.ok ? reservedMemory(r.document) : undefined;
    if (!r.ok)
      issues.push(...locate(r.issues).map((x) => ({ ...x, message: `${x.message} (in ${v.name})` })));
    else if (reserved !== undefined && !reserved.ok) issues.push(...locate(reserved.issues));
    else {
      warnings.push(...locate(r.warnings));
      built.push({ ...v, config: r.config, document: r.document });
    }
  }
  if (issues.some((i) => i.severity === "error")) throw new InputError(issues);
  return { variants: built, warnings: dedupe(warnings) };
}

/** How a setting is named in issues: the option as written. */
export function settingLabel(s: ConfigSetting): string {
  return s.text;
}

/**
 * The configuration `variant` is for a trace whose own configuration is `recorded` (its
 * KubeletConfiguration and kubelet flags): a file base is that file, the recorded base the
 * trace's own, each with the variant's settings over it.
 */
export function buildVariantFor(
  variant: ConfigVariant,
  recorded: { readonly document: unknown; readonly flags: readonly string[] } | undefined,
):
  | { readonly ok: true; readonly config: EvictionConfig; readonly document: unknown }
  | { readonly ok: false; readonly issues: Issue[] } {
  if (variant.config !== undefined) return { ok: true, config: variant.config, document: variant.document };
  const r =
    variant.base.kind === "file"
      ? buildConfigVariant(variant.base.document, [], variant.settings, settingLabel)
      : buildConfigVariant(recorded?.document, recorded?.flags ?? [], variant.settings, settingLabel);
  return r.ok ? { ok: true, config: r.config, document: r.document } : r;
}

function dedupe(list: readonly Issue[]): Issue[] {
  const seen = new Set<string>();
  return list.filter((i) => {
    const k = JSON.stringify(i);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
