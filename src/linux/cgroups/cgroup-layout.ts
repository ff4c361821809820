/** The kubelet's cgroupfs layout as pure path arithmetic, and the name rules that keep it inside the node. */
import type { QosClass } from "../../core/model.js";
import { AdapterError } from "../../errors.js";
import type { CgroupRef, ContainerCgroup, NodeCgroups, PodCgroup } from "./cgroup-driver.js";

/** The v2 leaf the daemon's own processes move to (the "no internal processes" rule). Not a valid node name. */
export const DAEMON_LEAF = "evictd-daemon";

/** The allocatable cgroup's name (upstream `kubepods`). */
export const PODS_DIR = "pods";

/**
 * Names become directory names next to the kernel's interface files (`memory.max`, `cgroup.procs`,
 * `tasks`...). Every interface file has a dot or is one of a few fixed words, so forbidding dots
 * and those words rules out collisions, `.`/`..` and path separators at once. Kubernetes container
 * names (DNS-1123 labels) and pod UIDs (UUIDs) fit.
 */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const RESERVED = new Set(["tasks", "notify_on_release", "release_agent", DAEMON_LEAF]);
/** A path segment: a name, or `pod` + a name. */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** Which kind of name is checked, for messages. */
export type NameKind = "node" | "pod uid" | "container";

/** Throws `cgroup-invalid-name` unless `name` is a safe single directory name. */
export function checkName(kind: NameKind, name: string): void {
  if (!NAME.test(name) || RESERVED.has(name)) {
    throw new AdapterError(
      "cgroup-invalid-name",
      `invalid ${kind} name ${JSON.stringify(name)} for a cgroup directory: use 1-64 of [A-Za-z0-9_-], starting with a letter or digit` +
        (RESERVED.has(name) ? ` (${name} is reserved)` : ""),
    );
  }
}

/** The handles of a node subtree named `name`. */
export function nodeLayout(name: string): NodeCgroups {
  checkName("node", name);
  const pods = `${name}/${PODS_DIR}`;
  return {
    name,
    node: { kind: "node", path: name },
    pods: { kind: "pods", path: pods },
    burstable: { kind: "qos", path: `${pods}/burstable` },
    besteffort: { kind: "qos", path: `${pods}/besteffort` },
  };
}

/** Where pods of a QoS class live: Guaranteed directly under `pods`, as upstream. */
const TIER: Readonly<Record<QosClass, (node: NodeCgroups) => CgroupRef>> = {
  Guaranteed: (node) => node.pods,
  Burstable: (node) => node.burstable,
  BestEffort: (node) => node.besteffort,
};

/** The handle of pod `uid` of class `qos` (upstream names pod cgroups `pod<uid>`). */
export function podLayout(node: NodeCgroups, uid: string, qos: QosClass): PodCgroup {
  checkName("pod uid", uid);
  return { kind: "pod", path: `${TIER[qos](node).path}/pod${uid}`, uid, qos };
}

/** The handle of container `name` of `pod`. */
export function containerLayout(pod: PodCgroup, name: string): ContainerCgroup {
  checkName("container", name);
  return { kind: "container", path: `${pod.path}/${name}`, name, pod };
}

/**
 * The path segments of `cgroup`, after checking it lies within `node` and every segment is a
 * valid name: a handle built by hand cannot reach outside the node (`cgroup-outside-node`).
 */
export function segmentsWithin(node: NodeCgroups | undefined, cgroup: CgroupRef): string[] {
  if (node === undefined) {
    throw new AdapterError(
      "cgroup-no-node",
      `no node cgroup exists: cannot use ${JSON.stringify(cgroup.path)}`,
      {
        hint: "call createNode first",
      },
    );
  }
  const segments = cgroup.path.split("/");
  const inside = segments[0] === node.name && segments.every((s) => SEGMENT.test(s) && !RESERVED.has(s));
  if (!inside) {
    throw new AdapterError(
      "cgroup-outside-node",
      `cgroup path ${JSON.stringify(cgroup.path)} is not inside node ${JSON.stringify(node.name)}: refusing to touch it`,
    );
  }
  return segments;
}
