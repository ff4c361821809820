/** Writes a kubeconfig file (YAML) for tests: one cluster, user and context per entry. */
import { writeFile } from "node:fs/promises";
import { stringify } from "yaml";

/** One context of the file, with its own cluster and user of the same name. */
export interface KubeconfigContext {
  readonly name: string;
  readonly server: string;
  /** Bearer token of the user; none: the user has no credentials. */
  readonly token?: string;
  /** CA file for an https server. */
  readonly caFile?: string;
  /** Needed by client-node for a plain-http server. */
  readonly insecureSkipTlsVerify?: boolean;
}

/** Writes `contexts` to `file` with `currentContext` (default: the first); returns `file`. */
export async function writeKubeconfig(
  file: string,
  contexts: readonly KubeconfigContext[],
  currentContext: string | undefined = contexts[0]?.name,
): Promise<string> {
  const document = {
    apiVersion: "v1",
    kind: "Config",
    clusters: contexts.map((c) => ({
      name: c.name,
      cluster: {
        server: c.server,
        ...(c.caFile === undefined ? {} : { "certificate-authority": c.caFile }),
        ...(c.insecureSkipTlsVerify === true ? { "insecure-skip-tls-verify": true } : {}),
      },
    })),
    users: contexts.map((c) => ({ name: c.name, user: c.token === undefined ? {} : { token: c.token } })),
    contexts: contexts.map((c) => ({ name: c.name, context: { cluster: c.name, user: c.name } })),
    ...(currentContext === undefined ? {} : { "current-context": currentContext }),
    preferences: {},
  };
  await writeFile(file, stringify(document), "utf8");
  return file;
}
