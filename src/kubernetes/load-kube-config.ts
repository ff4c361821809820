/**
 * Finding the cluster and the credentials: a kubeconfig file, the default chain (KUBECONFIG,
 * ~/.kube/config, then the pod's service account) or the service account alone, through
 * @kubernetes/client-node's KubeConfig, with a context chosen by name. Also names the identity in
 * use, so a 401/403 can say whose credentials were refused.
 */
import { KubeConfig } from "@kubernetes/client-node";
import { AdapterError } from "../errors.js";

/** Where the configuration comes from. */
export interface KubeConfigSelection {
  /** A kubeconfig file; default: the client-node default chain. */
  readonly kubeconfig?: string;
  /** A context of the kubeconfig; default: its current-context. */
  readonly context?: string;
  /** Use the pod's service account (KUBERNETES_SERVICE_HOST/PORT and its token) and nothing else. */
  readonly inCluster?: boolean;
  /**
   * Prefix of the service-account directory `/var/run/secrets/kubernetes.io/serviceaccount`
   * (client-node's `loadFromCluster(pathPrefix)`); for tests.
   */
  readonly inClusterPathPrefix?: string;
}

/** A loaded configuration, its chosen context and a description of the credentials. */
export interface LoadedKubeConfig {
  readonly kubeConfig: KubeConfig;
  readonly contextName: string;
  /** The API server URL of the context's cluster. */
  readonly server: string;
  /** Whose credentials these are, for messages: `bearer token of user "admin" in context "prod"`. */
  readonly identity: string;
}

const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** Loads and checks the configuration; throws AdapterError `kubeconfig` naming the problem. */
export function loadKubeConfig(selection: KubeConfigSelection): LoadedKubeConfig {
  const kc = new KubeConfig();
  const origin = load(kc, selection);
  if (selection.context !== undefined) {
    if (kc.getContextObject(selection.context) === null) {
      const known = kc.getContexts().map((c) => `"${c.name}"`);
      throw configError(
        `context "${selection.context}" is not in ${origin}` +
          (known.length > 0 ? ` (it has ${known.join(", ")})` : " (it has no contexts)"),
      );
    }
    kc.setCurrentContext(selection.context);
  }
  const contextName = kc.getCurrentContext();
  const context = kc.getContextObject(contextName);
  if (context === null) {
    throw configError(
      contextName
        ? `the current context "${contextName}" is not defined in ${origin}`
        : `${origin} sets no current context`,
      "name one with --context",
    );
  }
  const cluster = kc.getCurrentCluster();
  if (cluster === null || !cluster.server) {
    throw configError(
      `context "${contextName}" in ${origin} names cluster "${context.cluster}", which has no server URL`,
    );
  }
  if (cluster.server.startsWith("http:") && !cluster.skipTLSVerify) {
    // client-node refuses plain HTTP unless the cluster says insecure-skip-tls-verify.
    throw configError(
      `cluster "${cluster.name}" in ${origin} uses plain HTTP (${cluster.server})`,
      "use https, or set insecure-skip-tls-verify: true on the cluster for a local test server",
    );
  }
  return {
    kubeConfig: kc,
    contextName,
    server: cluster.server,
    identity: describeIdentity(kc, contextName, selection),
  };
}

/** Loads into `kc`; returns how to name the source in messages. */
function load(kc: KubeConfig, selection: KubeConfigSelection): string {
  if (selection.inCluster === true) {
    loadInCluster(kc, selection.inClusterPathPrefix ?? "");
    return "the in-cluster configuration";
  }
  if (selection.kubeconfig !== undefined) {
    const file = selection.kubeconfig;
    attempt(() => kc.loadFromFile(file), `cannot read kubeconfig ${file}`);
    return `kubeconfig ${file}`;
  }
  attempt(() => kc.loadFromDefault(), "cannot load the default kubeconfig");
  // With nothing found, client-node falls back to an unauthenticated http://localhost:8080.
  const cluster = kc.getCurrentCluster();
  if (
    kc.getCurrentContext() === "loaded-context" &&
    cluster?.name === "cluster" &&
    cluster.server === "http://localhost:8080"
  ) {
    throw configError(
      "no Kubernetes configuration found: KUBECONFIG is unset, ~/.kube/config does not exist, and this is not a pod with a service account",
      "pass --kubeconfig FILE",
    );
  }
  const fromEnv = process.env.KUBECONFIG;
  if (kc.getCurrentContext() === "inClusterContext") return "the in-cluster configuration";
  return fromEnv !== undefined && fromEnv !== "" ? `KUBECONFIG (${fromEnv})` : "~/.kube/config";
}

function loadInCluster(kc: KubeConfig, prefix: string): void {
  const host = process.env.KUBERNETES_SERVICE_HOST;
  const port = process.env.KUBERNETES_SERVICE_PORT;
  if (host === undefined || host === "" || port === undefined || port === "") {
    throw configError(
      "in-cluster configuration needs KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, which are not set (is this running in a pod?)",
    );
  }
  attempt(() => kc.loadFromCluster(prefix), "cannot load the in-cluster configuration");
}

function describeIdentity(kc: KubeConfig, contextName: string, selection: KubeConfigSelection): string {
  if (contextName === "inClusterContext") {
    return `the service account token in ${selection.inClusterPathPrefix ?? ""}${SERVICE_ACCOUNT_DIR}`;
  }
  const user = kc.getCurrentUser();
  if (user === null) return `no user in context "${contextName}"`;
  const exec = user.exec as { command?: unknown } | undefined;
  const authProvider = user.authProvider as { name?: unknown } | undefined;
  const how =
    typeof exec?.command === "string"
      ? `exec plugin ${exec.command} of `
      : typeof authProvider?.name === "string"
        ? `auth provider ${authProvider.name} of `
        : user.token !== undefined
          ? "bearer token of "
          : user.certFile !== undefined || user.certData !== undefined
            ? "client certificate of "
            : user.username !== undefined
              ? `basic auth (${user.username}) of `
              : "";
  return `${how}user "${user.name}" in context "${contextName}"`;
}

function attempt(load: () => void, what: string): void {
  try {
    load();
  } catch (error) {
    throw configError(`${what}: ${error instanceof Error ? error.message : String(error)}`, undefined, error);
  }
}

function configError(message: string, hint?: string, cause?: unknown): AdapterError {
  return new AdapterError("kubeconfig", message, {
    ...(hint === undefined ? {} : { hint }),
    ...(cause === undefined ? {} : { cause }),
  });
}
