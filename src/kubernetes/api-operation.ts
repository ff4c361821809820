/**
 * What a request asks the cluster's authorizer for (verb, resource, subresource, namespace), so a
 * 401/403 can say exactly which permission evictd is missing. The kubelet authorizes its own
 * endpoints with the same attributes (`pkg/kubelet/server/auth.go`: /stats/* → nodes/stats, every
 * other path, /configz included → nodes/proxy).
 */

/** The RBAC attributes of one request. */
export interface ApiOperation {
  readonly verb: "get" | "list" | "watch" | "patch" | "create" | "delete";
  readonly resource: string;
  readonly subresource?: string;
  /** Absent for cluster-scoped requests (nodes, or pods across namespaces). */
  readonly namespace?: string;
}

/**
 * The permission as an RBAC rule reads: `get nodes/proxy (cluster scope)`, `create pods/eviction in
 * namespace "web"`.
 */
export function describePermission(op: ApiOperation): string {
  const resource = op.subresource === undefined ? op.resource : `${op.resource}/${op.subresource}`;
  const scope = op.namespace === undefined ? "(cluster scope)" : `in namespace "${op.namespace}"`;
  return `${op.verb} ${resource} ${scope}`;
}
