/**
 * The UID the kubelet knows a pod by, which is not always the UID the API shows.
 *
 * A static pod (a manifest in the kubelet's staticPodPath, or from its manifest URL) never goes
 * through the API server: the kubelet makes its UID itself, an md5 of the node name, the source and
 * the pod, 32 hex digits (a manifest that sets metadata.uid keeps its own), and writes it into the
 * annotation `kubernetes.io/config.hash` (kubernetes pkg/kubelet/config/common.go, applyDefaults).
 * Its pod cgroup (`pod<hash>`, pkg/kubelet/cm pod_container_manager), its sandbox and so its
 * Summary API entry (`podRef.uid`, pkg/kubelet/stats/cri_stats_provider.go buildPodStats) carry
 * that UID, and so does the eviction manager's own pod list. What the API shows is the pod's
 * *mirror*: a copy the kubelet creates with the same namespace/name and annotations, a UID of the
 * API server's making, and the hash in `kubernetes.io/config.mirror` (pkg/kubelet/pod/mirror_client.go,
 * CreateMirrorPod; the constants in pkg/kubelet/types/pod_update.go). The kubelet goes from a mirror
 * to its static pod by namespace/name (pkg/kubelet/pod/pod_manager.go: GetPodByMirrorPod,
 * TranslatePodUID); evictd, which sees only the mirror, by the hash it carries.
 *
 * Everything evictd shows or acts on names the API's pod (namespace, name, the mirror's UID: what
 * an eviction or an event addresses); only the kubelet's cgroups and its Summary entries are looked
 * up by the kubelet's UID. Pure.
 */
import { CONFIG_MIRROR_ANNOTATION } from "../../core/pod/critical.js";
import { isRawObject, type RawObject } from "../../core/raw/raw-object.js";

/** A pod's two UIDs: the API's, and the kubelet's where it differs (a mirror pod's static pod). */
export interface PodUidPair {
  readonly uid: string;
  /** The kubelet's UID of the pod when it is not `uid`: a mirror pod's config hash. */
  readonly kubeletUid?: string;
}

/**
 * The kubelet's UID of the pod with this `metadata` (a raw v1 ObjectMeta whose UID is `uid`): the
 * hash a mirror pod carries, or undefined when it is `uid` itself.
 */
export function kubeletUidOfMetadata(metadata: RawObject, uid: string): string | undefined {
  const annotations = metadata["annotations"];
  if (!isRawObject(annotations)) return undefined;
  const hash = annotations[CONFIG_MIRROR_ANNOTATION];
  return typeof hash === "string" && hash !== "" && hash !== uid ? hash : undefined;
}

/** The UID the kubelet knows `pod` by. */
export function kubeletUidOf(pod: PodUidPair): string {
  return pod.kubeletUid ?? pod.uid;
}

/** A set of pods by either UID, and each UID translated to the other. */
export class PodUids<P extends PodUidPair> {
  readonly #byApi = new Map<string, P>();
  readonly #byKubelet = new Map<string, P>();

  constructor(pods: readonly P[]) {
    for (const p of pods) {
      this.#byApi.set(p.uid, p);
      this.#byKubelet.set(kubeletUidOf(p), p);
    }
  }

  /** The pod the kubelet knows by `kubeletUid`. */
  byKubeletUid(kubeletUid: string): P | undefined {
    return this.#byKubelet.get(kubeletUid);
  }

  /**
   * The pod a Summary entry with this UID stands for: the kubelet's UID (a kubelet's Summary), or
   * the API's (a Summary already named as the API names pods).
   */
  byEitherUid(uid: string): P | undefined {
    return this.#byKubelet.get(uid) ?? this.#byApi.get(uid);
  }

  /** The kubelet's UID of the pod the API knows by `uid`; `uid` itself for a pod not in the set. */
  toKubelet(uid: string): string {
    const pod = this.#byApi.get(uid);
    return pod === undefined ? uid : kubeletUidOf(pod);
  }

  /** The API's UID of the pod the kubelet knows by `kubeletUid`; `kubeletUid` itself for one not in the set. */
  toApi(kubeletUid: string): string {
    return this.#byKubelet.get(kubeletUid)?.uid ?? kubeletUid;
  }
}
