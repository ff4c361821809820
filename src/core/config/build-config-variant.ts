/**
 * An eviction configuration built from a KubeletConfiguration with command-line settings over it
 * (config-settings.ts): the what-if replay's `--config`/`--set` and each variant a fleet comparison
 * tries. Problems in a value a setting gave are reported against the setting (`--set
 * evictionHard.memory.available=12Q: ...`), problems in the document against its own path.
 */
import type { Issue } from "../issues.js";
import type { EvictionConfig } from "../model.js";
import { buildEvictionConfig } from "./build-eviction-config.js";
import { applyConfigSettings, settingPath, type ConfigSetting } from "./config-settings.js";
import { EVICTION_FLAGS } from "./eviction-flags.js";

export type ConfigVariantResult =
  | {
      readonly ok: true;
      readonly config: EvictionConfig;
      /** The KubeletConfiguration the variant is (the document with the settings applied). */
      readonly document: unknown;
      readonly warnings: Issue[];
    }
  | { readonly ok: false; readonly issues: Issue[] };

/** The configuration fields that `flags` set (a kubelet flag replaces the whole field). */
export function fieldsSetByFlags(flags: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const word of flags) {
    if (!word.startsWith("-")) continue;
    const name = word.replace(/^-+/, "").split("=")[0]?.replaceAll("_", "-") ?? "";
    const spec = EVICTION_FLAGS[name];
    if (spec !== undefined) out.add(spec.field);
  }
  return out;
}

/**
 * `document` (a KubeletConfiguration; undefined: the kubelet's defaults) with `settings` applied,
 * then `flags` over it as the kubelet applies them. `label(setting)` names a setting in issues.
 * A setting whose field a flag replaces would have no effect: that is an error.
 */
export function buildConfigVariant(
  document: unknown,
  flags: readonly string[],
  settings: readonly ConfigSetting[],
  label: (s: ConfigSetting) => string,
): ConfigVariantResult {
  const flagged = fieldsSetByFlags(flags);
  const shadowed = settings.filter((s) => flagged.has(s.field));
  if (shadowed.length > 0)
    return {
      ok: false,
      issues: shadowed.map((s) => ({
        severity: "error",
        path: label(s),
        code: "setting-shadowed",
        message: `the kubelet flags of this configuration set ${s.field}, which replaces the whole field: the setting would have no effect (give the configuration as a file instead)`,
      })),
    };
  const applied = settings.length === 0 ? document : applyConfigSettings(document, settings);
  const built = buildEvictionConfig({
    ...(applied !== undefined ? { config: applied } : {}),
    configPath: "config",
    flags,
    flagsPath: "flags",
  });
  // An issue under a setting's own path is that setting's: named as the user wrote it.
  const relabel = (issue: Issue): Issue => {
    const s = [...settings].reverse().find((x) => {
      const p = settingPath("config", x);
      return issue.path === p || issue.path.startsWith(`${p}.`) || issue.path.startsWith(`${p}[`);
    });
    return s === undefined ? issue : { ...issue, path: label(s) };
  };
  if (!built.ok) return { ok: false, issues: built.issues.map(relabel) };
  return { ok: true, config: built.config, document: applied, warnings: built.warnings.map(relabel) };
}
