/**
 * Pod volumes reduced to what eviction distinguishes: the source kind (which usages count as local
 * ephemeral storage) and, for emptyDir, the medium and sizeLimit.
 */
import { pathIndex, pathKey, type IssueList } from "../issues.js";
import type { Volume, VolumeKind } from "../model.js";
import { decodeQuantity } from "./decode-resources.js";
import { describeValue } from "../raw/describe-value.js";
import { isRawObject } from "../raw/raw-object.js";
import { readObject, readRequiredString, readString } from "./raw-fields.js";

/** Source fields that map to a kind of their own; any other source is "other". */
const KNOWN_SOURCES: readonly Exclude<VolumeKind, "other">[] = [
  "emptyDir",
  "hostPath",
  "gitRepo",
  "configMap",
  "secret",
  "projected",
  "downwardAPI",
  "persistentVolumeClaim",
];

function decodeVolume(raw: unknown, path: string, issues: IssueList): Volume | undefined {
  if (!isRawObject(raw)) {
    issues.error(path, "invalid-type", `expected a volume object, got ${describeValue(raw)}`);
    return undefined;
  }
  const name = readRequiredString(raw, "name", path, issues, "a volume name");
  if (name === undefined) return undefined;
  const present = (key: string): boolean => raw[key] !== undefined && raw[key] !== null;
  const known = KNOWN_SOURCES.find(present);
  // SetDefaults_Volume: a volume naming no source at all is an emptyDir.
  const hasOtherSource = Object.keys(raw).some((key) => key !== "name" && present(key));
  const kind: VolumeKind = known ?? (hasOtherSource ? "other" : "emptyDir");
  if (kind !== "emptyDir") return { name, kind };

  const source = readObject(raw, "emptyDir", path, issues);
  const sourcePath = pathKey(path, "emptyDir");
  const medium = source === undefined ? "" : (readString(source, "medium", sourcePath, issues) ?? "");
  const rawLimit = source?.["sizeLimit"];
  const sizeLimit =
    rawLimit === undefined || rawLimit === null
      ? undefined
      : decodeQuantity(rawLimit, pathKey(sourcePath, "sizeLimit"), issues);
  return sizeLimit === undefined ? { name, kind, medium } : { name, kind, medium, sizeLimit };
}

/** `spec.volumes`; entries with errors are reported and left out. */
export function decodeVolumes(raw: readonly unknown[], path: string, issues: IssueList): Volume[] {
  const out: Volume[] = [];
  raw.forEach((item, i) => {
    const volume = decodeVolume(item, pathIndex(path, i), issues);
    if (volume !== undefined) out.push(volume);
  });
  return out;
}
