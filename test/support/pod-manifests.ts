/**
 * Short v1 Pod manifests for engine scenarios: `pod("default/web", {requests: {memory: "128Mi"}})`
 * yields the plain object a user would write; the scenario runner decodes it with decodePodList, so
 * the API server defaults (uid, terminationGracePeriodSeconds 30, priority classes) apply.
 */

export type ResourceMap = Readonly<Record<string, string>>;

export interface ContainerSpec {
  readonly requests?: ResourceMap;
  readonly limits?: ResourceMap;
  /** `Always` on an init container makes it a sidecar. */
  readonly restartPolicy?: string;
}

export interface PodSpec extends ContainerSpec {
  /** Regular containers by name; absent = one container `app` with the top-level requests/limits. */
  readonly containers?: Readonly<Record<string, ContainerSpec>>;
  readonly initContainers?: Readonly<Record<string, ContainerSpec>>;
  readonly priority?: number;
  readonly priorityClassName?: string;
  readonly annotations?: Readonly<Record<string, string>>;
  /** spec.terminationGracePeriodSeconds (API default 30). */
  readonly tgps?: number;
  /** Pod-level resources (spec.resources). */
  readonly resources?: { readonly requests?: ResourceMap; readonly limits?: ResourceMap };
  /** Raw v1 volumes; see `volume`. */
  readonly volumes?: readonly Readonly<Record<string, unknown>>[];
  readonly uid?: string;
}

export type PodManifest = Readonly<Record<string, unknown>>;

function container(name: string, c: ContainerSpec): Record<string, unknown> {
  const resources: Record<string, unknown> = {};
  if (c.requests !== undefined) resources["requests"] = c.requests;
  if (c.limits !== undefined) resources["limits"] = c.limits;
  return {
    name,
    image: "registry.example/app:1",
    ...(Object.keys(resources).length > 0 ? { resources } : {}),
    ...(c.restartPolicy !== undefined ? { restartPolicy: c.restartPolicy } : {}),
  };
}

/** A Pod manifest; `key` is `namespace/name` (or just `name` in `default`). */
export function pod(key: string, spec: PodSpec = {}): PodManifest {
  const [namespace, name] = key.includes("/") ? key.split("/", 2) : ["default", key];
  const containers =
    spec.containers === undefined
      ? [container("app", spec)]
      : Object.entries(spec.containers).map(([n, c]) => container(n, c));
  const podSpec: Record<string, unknown> = { containers };
  if (spec.initContainers !== undefined) {
    podSpec["initContainers"] = Object.entries(spec.initContainers).map(([n, c]) => container(n, c));
  }
  if (spec.priority !== undefined) podSpec["priority"] = spec.priority;
  if (spec.priorityClassName !== undefined) podSpec["priorityClassName"] = spec.priorityClassName;
  if (spec.tgps !== undefined) podSpec["terminationGracePeriodSeconds"] = spec.tgps;
  if (spec.resources !== undefined) podSpec["resources"] = spec.resources;
  if (spec.volumes !== undefined) podSpec["volumes"] = spec.volumes;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace,
      ...(spec.uid !== undefined ? { uid: spec.uid } : {}),
      ...(spec.annotations !== undefined ? { annotations: spec.annotations } : {}),
    },
    spec: podSpec,
  };
}

/** Volume sources by the field name the v1 API uses for them. */
export type VolumeSource =
  | "emptyDir"
  | "hostPath"
  | "gitRepo"
  | "configMap"
  | "secret"
  | "projected"
  | "downwardAPI"
  | "persistentVolumeClaim";

const SOURCE_BODY: Readonly<Record<VolumeSource, Readonly<Record<string, unknown>>>> = {
  emptyDir: {},
  hostPath: { path: "/var/data" },
  gitRepo: { repository: "https://example.com/repo.git" },
  configMap: { name: "settings" },
  secret: { secretName: "creds" },
  projected: { sources: [] },
  downwardAPI: { items: [] },
  persistentVolumeClaim: { claimName: "data" },
};

/** A v1 volume of the given source kind. */
export function volume(name: string, source: VolumeSource): Readonly<Record<string, unknown>> {
  return { name, [source]: SOURCE_BODY[source] };
}

/** An emptyDir volume, optionally memory-backed and/or size-limited. */
export function emptyDir(
  name: string,
  options: { readonly sizeLimit?: string; readonly medium?: string } = {},
): Readonly<Record<string, unknown>> {
  return { name, emptyDir: { ...options } };
}
