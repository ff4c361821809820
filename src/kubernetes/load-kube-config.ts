/**
 * Finding the cluster and the credentials: a kubeconfig file, the default chain (KUBECONFIG,
 * ~/.kube/config, then the pod's service account) or the service account alone, through
 * @kubernetes/client-node's KubeConfig, with a context chosen by name. Kubeconfig files are read and
 * checked here first (kubernetes/kubeconfig-file: errors with line:column and nothing secret), and
 * a token file of the chosen user is read before any request. Also names the identity in use, so
 * a 401/403 can say whose credentials were refused.
 */
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { scrubSecrets } from "../core/redact-secrets.js";
import { AdapterError } from "../errors.js";
import { readKubeconfigFile } from "./kubeconfig-file.js";
import { readTokenFile, TokenFile } from "./token-file.js";

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
  /** The user's `tokenFile`, already read once; its token goes in every request's Authorization. */
  readonly tokenFile?: TokenFile;
}

const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** Loads and checks the configuration; throws AdapterError `kubeconfig` naming the problem. */
export function loadKubeConfig(selection: KubeConfigSelection): LoadedKubeConfig {
  const kc = new KubeConfig();
  const tokenFiles = new Map<string, string>();
  const origin = load(kc, selection, tokenFiles);
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
  const user = kc.getCurrentUser();
  const tokenFilePath = user === null ? undefined : tokenFiles.get(user.name);
  const identity = describeIdentity(kc, contextName, selection, tokenFilePath);
  const owner = `user "${user?.name ?? ""}" in ${origin}`;
  // Client-node's in-cluster loading reads the service-account token only at the first request.
  const providerFile = (user?.authProvider as { config?: { tokenFile?: unknown } } | undefined)?.config
    ?.tokenFile;
  if (tokenFilePath === undefined && typeof providerFile === "string") readTokenFile(providerFile, owner);
  return {
    kubeConfig: kc,
    contextName,
    server: cluster.server,
    identity,
    ...(tokenFilePath === undefined ? {} : { tokenFile: new TokenFile(tokenFilePath, owner) }),
  };
}

/** Loads into `kc` (token files into `tokenFiles`); returns how to name the source in messages. */
function load(kc: KubeConfig, selection: KubeConfigSelection, tokenFiles: Map<string, string>): string {
  if (selection.inCluster === true) {
    loadInCluster(kc, selection.inClusterPathPrefix ?? "");
    return "the in-cluster configuration";
  }
  if (selection.kubeconfig !== undefined) {
    loadFile(kc, selection.kubeconfig, tokenFiles);
    return `kubeconfig ${selection.kubeconfig}`;
  }
  loadDefault(kc, tokenFiles);
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

/** One kubeconfig file, checked first (its errors show no secret), then handed to client-node as JSON. */
function loadFile(kc: KubeConfig, file: string, tokenFiles: Map<string, string>): void {
  const checked = readKubeconfigFile(file);
  attempt(() => {
    kc.loadFromString(checked.json);
    kc.makePathsAbsolute(path.dirname(file));
  }, `cannot read kubeconfig ${file}`);
  for (const [user, tokenFile] of checked.tokenFiles)
    if (!tokenFiles.has(user)) tokenFiles.set(user, tokenFile);
}

/**
 * client-node's default chain with each file read by {@link loadFile}: the files of KUBECONFIG
 * (merged), else ~/.kube/config, else client-node's own fallbacks (the pod's service account, or
 * nothing).
 */
function loadDefault(kc: KubeConfig, tokenFiles: Map<string, string>): void {
  const files = (process.env.KUBECONFIG ?? "").split(path.delimiter).filter((f) => f !== "");
  const home = process.env.HOME ?? os.homedir();
  const homeConfig = path.join(home, ".kube", "config");
  if (files.length === 0 && home !== "" && existsSync(homeConfig)) files.push(homeConfig);
  const [first, ...rest] = files;
  if (first === undefined) {
    attempt(() => kc.loadFromDefault(), "cannot load the default kubeconfig");
    return;
  }
  loadFile(kc, first, tokenFiles);
  for (const file of rest) {
    const more = new KubeConfig();
    loadFile(more, file, tokenFiles);
    attempt(() => kc.mergeConfig(more), `cannot merge kubeconfig ${file}`);
  }
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

function describeIdentity(
  kc: KubeConfig,
  contextName: string,
  selection: KubeConfigSelection,
  tokenFile: string | undefined,
): string {
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
        : tokenFile !== undefined
          ? `token file ${tokenFile} of `
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
    // Checked files rarely fail here; whatever client-node says, it must not carry a credential.
    const said = scrubSecrets(error instanceof Error ? error.message : String(error));
    throw configError(`${what}: ${said}`, undefined, error);
  }
}

function configError(message: string, hint?: string, cause?: unknown): AdapterError {
  return new AdapterError("kubeconfig", message, {
    ...(hint === undefined ? {} : { hint }),
    ...(cause === undefined ? {} : { cause }),
  });
}
