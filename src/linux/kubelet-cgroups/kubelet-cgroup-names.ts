/**
 * The kubelet's cgroup names as pure path arithmetic, for both of its cgroup drivers, so evictd can
 * find the pods the kubelet runs (pkg/kubelet/cm: cgroup_manager_linux.go, qos_container_manager,
 * pod_container_manager; the runtimes' container scopes):
 *
 *   cgroupfs: <cgroupRoot>/kubepods/pod<uid>                   Guaranteed
 *             <cgroupRoot>/kubepods/burstable/pod<uid>         Burstable
 *             <cgroupRoot>/kubepods/besteffort/pod<uid>        BestEffort
 *             .../pod<uid>/<container id>                      a container
 *   systemd:  kubepods.slice/kubepods-pod<uid_>.slice
 *             kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid_>.slice
 *             .../cri-containerd-<id>.scope | crio-<id>.scope | docker-<id>.scope
 *
 * The systemd driver turns each name segment into a slice named after all the segments above it,
 * joined by dashes, with dashes inside a segment escaped to underscores (`ToSystemd`); a pod's UID
 * therefore appears with underscores. Paths here are relative to a hierarchy's root, without a
 * leading slash.
 */

/** The kubelet's `cgroupDriver`. */
export type KubeletCgroupDriver = "cgroupfs" | "systemd";

/** The QoS tiers the kubelet makes below kubepods (Guaranteed pods sit in kubepods itself). */
export const QOS_TIERS = ["burstable", "besteffort"] as const;

/** `/a/b/` → ["a", "b"]; "/" and "" → []. */
function segments(cgroupRoot: string): string[] {
  return cgroupRoot.split("/").filter((s) => s !== "");
}

/** `ToSystemd`: ["kubepods", "burstable"] → "kubepods.slice/kubepods-burstable.slice". */
function systemdPath(name: readonly string[]): string {
  const out: string[] = [];
  let prefix = "";
  for (const segment of name) {
    const escaped = segment.replaceAll("-", "_");
    prefix = prefix === "" ? escaped : `${prefix}-${escaped}`;
    out.push(`${prefix}.slice`);
  }
  return out.join("/");
}

/** The kubelet's internal cgroup name of the kubepods cgroup: cgroupRoot's segments, then "kubepods". */
function kubepodsName(cgroupRoot: string): string[] {
  return [...segments(cgroupRoot), "kubepods"];
}

function render(driver: KubeletCgroupDriver, name: readonly string[]): string {
  return driver === "systemd" ? systemdPath(name) : name.join("/");
}

/** The node allocatable cgroup (`kubepods`), relative to the hierarchy root. */
export function kubepodsPath(driver: KubeletCgroupDriver, cgroupRoot: string): string {
  return render(driver, kubepodsName(cgroupRoot));
}

/** The QoS tier cgroups below kubepods, where Burstable and BestEffort pods live. */
export function qosTierPaths(driver: KubeletCgroupDriver, cgroupRoot: string): string[] {
  return QOS_TIERS.map((tier) => render(driver, [...kubepodsName(cgroupRoot), tier]));
}

/** The pod cgroup of `uid` in `tier` (undefined: Guaranteed), relative to the hierarchy root. */
export function podCgroupPath(
  driver: KubeletCgroupDriver,
  cgroupRoot: string,
  uid: string,
  tier?: (typeof QOS_TIERS)[number],
): string {
  return render(driver, [...kubepodsName(cgroupRoot), ...(tier === undefined ? [] : [tier]), `pod${uid}`]);
}

/** A UID the API server makes (a UUID), dashes escaped to underscores or not. */
const API_UID = "[0-9a-fA-F]{8}[-_][0-9a-fA-F]{4}[-_][0-9a-fA-F]{4}[-_][0-9a-fA-F]{4}[-_][0-9a-fA-F]{12}";
/**
 * A static pod's UID, which the kubelet makes itself: the md5 of its node, source and manifest, as
 * 32 hex digits (kubernetes pkg/kubelet/config/common.go, applyDefaults).
 */
const CONFIG_HASH_UID = "[0-9a-fA-F]{32}";
const POD_DIR = new RegExp(`^(?:[A-Za-z0-9_-]+-)?pod(${API_UID}|${CONFIG_HASH_UID})(?:\\.slice)?$`);

/**
 * The pod UID a pod cgroup's directory name carries (`pod<uid>`, `kubepods-burstable-pod<uid_>.slice`),
 * dashes restored; undefined for anything else (QoS tiers, containers, the runtime's own cgroups).
 * A static pod's cgroup carries the kubelet's UID of it, its config hash, which the API shows only
 * in its mirror pod's `kubernetes.io/config.mirror` annotation (app/cluster/kubelet-pod-uid.ts).
 */
export function podUidOfDir(dirName: string): string | undefined {
  const m = POD_DIR.exec(dirName);
  return m?.[1]?.replaceAll("_", "-").toLowerCase();
}

/** Container cgroups: the id alone (cgroupfs), or a runtime's scope (systemd). conmon's scopes are not containers. */
const CONTAINER_DIR = /^(?:(?:cri-containerd|crio|docker|cri-o)-)?([0-9a-f]{64})(?:\.scope)?$/;

/** The container id a container cgroup's directory name carries; undefined for anything else. */
export function containerIdOfDir(dirName: string): string | undefined {
  return CONTAINER_DIR.exec(dirName)?.[1];
}
