/**
 * Where a node's kubelet listens, read from its v1 Node object: `status.addresses` (InternalIP,
 * else Hostname) and `status.daemonEndpoints.kubeletEndpoint.Port`, which the kubelet reports itself.
 */

/** The kubelet's host and port, or why they cannot be known. */
export type KubeletAddress =
  | { readonly ok: true; readonly host: string; readonly port: number }
  | { readonly ok: false; readonly problem: string };

/** The default kubelet port (`--port`, KubeletConfiguration `port`). */
export const DEFAULT_KUBELET_PORT = 10250;

/**
 * The kubelet address of `node`. `port` wins when given; else the port the kubelet reported, else
 * 10250.
 */
export function kubeletAddress(node: unknown, port: number | undefined): KubeletAddress {
  const status = field(node, "status");
  const addresses = field(status, "addresses");
  const list = Array.isArray(addresses) ? (addresses as unknown[]) : [];
  const host = addressOf(list, "InternalIP") ?? addressOf(list, "Hostname");
  if (host === undefined) {
    const seen = list.map((a) => field(a, "type")).filter((t) => typeof t === "string");
    return {
      ok: false,
      problem: `the Node has no InternalIP or Hostname address (status.addresses: ${seen.length > 0 ? seen.join(", ") : "none"})`,
    };
  }
  const reported = field(field(field(status, "daemonEndpoints"), "kubeletEndpoint"), "Port");
  const chosen = port ?? (typeof reported === "number" && reported > 0 ? reported : DEFAULT_KUBELET_PORT);
  return { ok: true, host, port: chosen };
}

function addressOf(list: readonly unknown[], type: string): string | undefined {
  for (const entry of list) {
    const address = field(entry, "address");
    if (field(entry, "type") === type && typeof address === "string" && address !== "") return address;
  }
  return undefined;
}

function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}
