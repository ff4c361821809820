/**
 * One entry of `spec.containers` or `spec.initContainers`: name, defaulted resources, the init
 * container restart policy that marks a sidecar, and the command line and plain env values.
 */
import { pathIndex, pathKey, type IssueList } from "../issues.js";
import type { Container } from "../model.js";
import { decodeContainerResources } from "./decode-resources.js";
import { describeValue } from "../raw/describe-value.js";
import { isRawObject, type RawObject } from "../raw/raw-object.js";
import { readArray, readObject, readRequiredString, readString, readStringList } from "./raw-fields.js";

export type ContainerKind = "container" | "initContainer";

type EnvVar = NonNullable<Container["env"]>[number];

/** Env entries with a literal value keep it; `valueFrom` references keep only the name. */
function decodeEnv(raw: RawObject, path: string, issues: IssueList): EnvVar[] | undefined {
  const list = readArray(raw, "env", path, issues);
  if (list === undefined) return undefined;
  const listPath = pathKey(path, "env");
  const out: EnvVar[] = [];
  list.forEach((item, i) => {
    const at = pathIndex(listPath, i);
    if (!isRawObject(item)) {
      issues.error(at, "invalid-type", `expected an env var object, got ${describeValue(item)}`);
      return;
    }
    const name = readRequiredString(item, "name", at, issues, "an env var name");
    if (name === undefined) return;
    const value = readString(item, "value", at, issues);
    out.push(value === undefined ? { name } : { name, value });
  });
  return out;
}

/**
 * Decodes a container. `restartPolicy` is read for init containers only (`Always` = sidecar); the
 * API server refuses it on regular containers.
 */
export function decodeContainer(
  raw: unknown,
  path: string,
  issues: IssueList,
  kind: ContainerKind,
): Container | undefined {
  if (!isRawObject(raw)) {
    issues.error(path, "invalid-type", `expected a container object, got ${describeValue(raw)}`);
    return undefined;
  }
  const name = readRequiredString(raw, "name", path, issues, "a container name");
  const resources = decodeContainerResources(
    readObject(raw, "resources", path, issues),
    pathKey(path, "resources"),
    issues,
  );
  const restartPolicy = kind === "initContainer" ? readString(raw, "restartPolicy", path, issues) : undefined;
  const command = readStringList(raw, "command", path, issues);
  const args = readStringList(raw, "args", path, issues);
  const env = decodeEnv(raw, path, issues);
  if (name === undefined) return undefined;
  return {
    name,
    resources,
    ...(restartPolicy !== undefined && restartPolicy !== "" ? { restartPolicy } : {}),
    ...(command !== undefined ? { command } : {}),
    ...(args !== undefined ? { args } : {}),
    ...(env !== undefined ? { env } : {}),
  };
}
