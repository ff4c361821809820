/**
 * The two places evictd talks to, each with the headers and TLS agent for one request: the API
 * server (everything as client-node derives it from the kubeconfig: token, exec/OIDC plugin, client
 * certificate, CA, insecure-skip-tls-verify, proxy) and a node's kubelet (the same credentials, but
 * the kubelet's own serving certificate, checked against a CA of its own or not at all).
 */
import http from "node:http";
import https from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";
import { scrubSecrets } from "../core/redact-secrets.js";
import { AdapterError } from "../errors.js";
import { KeepAliveAgents } from "./keep-alive-agents.js";
import type { TokenFile } from "./token-file.js";

/** Short requests share kept connections; a stream (a watch) holds one of its own. */
export type ConnectionUse = "request" | "stream";

/** Headers and agent for one request. */
export interface PreparedRequest {
  readonly headers: Readonly<Record<string, string>>;
  readonly agent: http.Agent;
  /** `user:password` for basic auth, which client-node hands over this way. */
  readonly auth: string | undefined;
}

/** A server evictd sends requests to. */
export interface KubeEndpoint {
  readonly kind: "apiserver" | "kubelet";
  /** Scheme, host, port and any path prefix (some API servers sit under one behind a proxy). */
  readonly baseUrl: URL;
  /** For messages: "the API server at https://10.0.0.1:6443". */
  readonly describe: string;
  /**
   * Headers and agent for the next request; credentials may refresh between calls (exec, OIDC).
   * A `stream` (a watch) holds its connection for as long as it runs: it gets connections of its
   * own, so the kept connection of the short requests stays free for the next one. Otherwise an
   * HTTP/1.1 watch takes the only kept connection, and the first request after it (an eviction)
   * waits for a new connection and its TLS handshake.
   */
  prepare(use?: ConnectionUse): Promise<PreparedRequest>;
}

/** TLS settings for talking to a kubelet directly. */
export interface KubeletTls {
  /** CA bundle the kubelet's serving certificate must chain to; default: the cluster CA. */
  readonly ca: Buffer | undefined;
  /** Accept any certificate (kubelets with self-signed serving certificates). */
  readonly insecure: boolean;
}

/** The API server of the kubeconfig's current context (`tokenFile`: the user's, which client-node does not read). */
export function apiServerEndpoint(
  kc: KubeConfig,
  server: string,
  identity: string,
  tokenFile?: TokenFile,
): KubeEndpoint {
  const baseUrl = new URL(server);
  const agents = { request: new KeepAliveAgents(), stream: new KeepAliveAgents() };
  return {
    kind: "apiserver",
    baseUrl,
    describe: `the API server at ${baseUrl.origin}`,
    async prepare(use: ConnectionUse = "request") {
      const options = await credentialOptions(kc, identity, tokenFile);
      return {
        headers: headerRecord(options.headers),
        agent: agents[use].reuse(agentOf(options)),
        auth: options.auth ?? undefined,
      };
    },
  };
}

/** A kubelet at `host:port`, reached over HTTPS with the context's credentials. */
export function kubeletEndpoint(
  kc: KubeConfig,
  host: string,
  port: number,
  tls: KubeletTls,
  identity: string,
  tokenFile?: TokenFile,
): KubeEndpoint {
  const baseUrl = new URL(`https://${host.includes(":") ? `[${host}]` : host}:${port}`);
  const agents = { request: new KeepAliveAgents(), stream: new KeepAliveAgents() };
  return {
    kind: "kubelet",
    baseUrl,
    describe: `the kubelet at ${baseUrl.origin}`,
    async prepare(use: ConnectionUse = "request") {
      const options = await credentialOptions(kc, identity, tokenFile);
      // The cluster's TLS server name and proxy belong to the API server, not to the node.
      const agent = new https.Agent({
        ...(options.cert === undefined ? {} : { cert: options.cert }),
        ...(options.key === undefined ? {} : { key: options.key }),
        ...(tls.ca !== undefined ? { ca: tls.ca } : options.ca === undefined ? {} : { ca: options.ca }),
        rejectUnauthorized: !tls.insecure,
      });
      return {
        headers: headerRecord(options.headers),
        agent: agents[use].reuse(agent),
        auth: options.auth ?? undefined,
      };
    },
  };
}

/**
 * client-node's view of the request options: headers, TLS material and an agent; with a token
 * file, its token as the bearer (read before anything is sent: an unreadable file throws here).
 */
async function credentialOptions(
  kc: KubeConfig,
  identity: string,
  tokenFile: TokenFile | undefined,
): Promise<https.RequestOptions> {
  const token = tokenFile?.token();
  const options: https.RequestOptions = { headers: {} };
  await applyOptions(kc, identity, options);
  if (token !== undefined) options.headers = { ...options.headers, Authorization: `Bearer ${token}` };
  return options;
}

async function applyOptions(kc: KubeConfig, identity: string, options: https.RequestOptions): Promise<void> {
  try {
    await kc.applyToHTTPSOptions(options);
  } catch (error) {
    // Exec plugins that fail, unreadable token or certificate files, an expired OIDC refresh. A
    // plugin's output or a provider's answer may quote a credential: scrubbed.
    const said = scrubSecrets(error instanceof Error ? error.message : String(error));
    throw new AdapterError("kube-credentials", `cannot get credentials (${identity}): ${said}`, {
      cause: error,
    });
  }
}

function agentOf(options: https.RequestOptions): http.Agent {
  const agent = options.agent;
  if (agent instanceof http.Agent) return agent;
  throw new AdapterError("kube-credentials", "client-node did not provide an HTTP agent for the API server");
}

function headerRecord(
  headers: http.OutgoingHttpHeaders | readonly string[] | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === undefined || isStringArray(headers)) return out;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return out;
}

function isStringArray(v: unknown): v is readonly string[] {
  return Array.isArray(v);
}
