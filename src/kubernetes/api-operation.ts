/**
 * What a request asks the cluster's authorizer for (verb, resource, subresource, namespace), so a
 * 401/403 can say exactly which permission evictd is missing. The kubelet authorizes its own
 * endpoints with the same attributes (`pkg/kubelet/server/auth.go`: /stats/* → nodes/stats, every
 * other path, /configz included → nodes/proxy).
 */

/** The RBAC attributes of one request. */
export interface ApiOperation {
  readonly verb: "get" | "list" | "watch" | "patch" | "create" | "delete";
  /** The API group; absent for the core group (pods, nodes, events). */
  readonly group?: string;
  readonly resource: string;
  readonly subresource?: string;
  /** Absent for cluster-scoped requests (nodes, or pods across namespaces). */
  readonly namespace?: string;
}

/**
 * The permission as an RBAC rule reads: `get nodes/proxy (cluster scope)`, `create pods/eviction in
 * namespace "web"`, `create evictionrequests.lifecycle.k8s.io in namespace "web"` (a resource of
 * another group than the core one is named with its group, as kubectl auth can-i takes it).
 */
export function describePermission(op: ApiOperation): string {
  const qualified = op.group === undefined || op.group === "" ? op.resource : `${op.resource}.${op.group}`;
  const resource = op.subresource === undefined ? qualified : `${qualified}/${op.subresource}`;
  const scope = op.namespace === undefined ? "(cluster scope)" : `in namespace "${op.namespace}"`;
  return `${op.verb} ${resource} ${scope}`;
}
