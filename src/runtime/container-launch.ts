/**
 * What a container runs: its argv (command + args, `$(VAR)` expanded, no shell added), its
 * environment, and the second shim stage that sets oom_score_adj before the command's first
 * instruction.
 */
import type { Container, Pod } from "../core/model.js";
import { expandEnvRefs } from "./expand-env-refs.js";

/** PATH for containers: there is no image to supply one, so the usual default. */
export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * Runs after `spawnInCgroups`' shim has put the process in its cgroups (the pid stays the same
 * through both `exec`s): writes the adjustment to its own oom_score_adj, then execs the command
 * verbatim ("$@", nothing interpreted). A failed write (an unprivileged daemon lowering the score)
 * is reported on the container's stderr, and the command still runs, as a kubelet would log it.
 *
 * Argument layout: `/bin/sh -c SCRIPT evictd-oom <adj> <argv>...`.
 */
const OOM_STAGE = [
  "adj=$1; shift",
  '{ echo "$adj" > /proc/$$/oom_score_adj; } 2>/dev/null || echo "evictd: cannot set oom_score_adj to $adj" >&2',
  'exec "$@"',
].join("\n");

/** argv wrapped in the oom_score_adj stage. */
export function withOomScoreAdj(oomScoreAdj: number, argv: readonly string[]): string[] {
  return ["/bin/sh", "-c", OOM_STAGE, "evictd-oom", String(oomScoreAdj), ...argv];
}

/** Environment of a container: defaults, the volumes, then the manifest's `env` in order. */
export function containerEnv(
  pod: Pod,
  container: Container,
  rootfs: string,
  volumeDirs: ReadonlyMap<string, string>,
): Record<string, string> {
  const env: Record<string, string> = {
    PATH: DEFAULT_PATH,
    HOSTNAME: pod.name,
    HOME: rootfs,
    EVICTD_POD_NAME: pod.name,
    EVICTD_POD_NAMESPACE: pod.namespace,
    EVICTD_POD_UID: pod.uid,
    EVICTD_CONTAINER_NAME: container.name,
    ...Object.fromEntries(volumeDirs),
  };
  // Each value may refer to variables defined before it (upstream expands in declaration order).
  // Entries without a literal value (valueFrom) cannot be resolved here and are left out.
  for (const entry of container.env ?? []) {
    if (entry.value === undefined) continue;
    env[entry.name] = expandEnvRefs(entry.value, (name) =>
      Object.hasOwn(env, name) ? env[name] : undefined,
    );
  }
  return env;
}

/**
 * The argv: `command` then `args`, references expanded against the final environment. Without an
 * image there is no entrypoint to fall back on, so a container must say what to run.
 */
export function containerArgv(
  container: Container,
  env: Readonly<Record<string, string>>,
): string[] | { error: string } {
  const argv = [...(container.command ?? []), ...(container.args ?? [])].map((part) =>
    expandEnvRefs(part, (name) => (Object.hasOwn(env, name) ? env[name] : undefined)),
  );
  const first = argv[0];
  if (first === undefined || first === "")
    return {
      error: `container ${container.name} has no command: evictd runs no images, so command (or args) must name a program`,
    };
  if (first.startsWith("-"))
    return {
      error: `container ${container.name}: a command may not start with "-" (${JSON.stringify(first)})`,
    };
  return argv;
}
