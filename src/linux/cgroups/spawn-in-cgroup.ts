/** Starts a process that is inside its cgroups before its first instruction, through a two-line /bin/sh shim. */
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { AdapterError } from "../../errors.js";

/** Exit status of the shim when it could not write its pid to a `cgroup.procs` file (the target never ran). */
export const SHIM_JOIN_FAILED = 125;

/**
 * Node cannot run code between fork and exec, so a child cannot place itself in a cgroup. Moving it
 * after spawn() returns is racy: the program may already have allocated (and on v1, charges made
 * before a move stay with the old cgroup) or forked children that stay behind. Instead the child
 * starts as this shell, which writes its own pid (`$$`, which exec keeps) to each `cgroup.procs`
 * file and then execs the target argv verbatim: the user's command is passed as positional
 * parameters and expanded only as "$@", so nothing in it is interpreted by the shell (no globbing,
 * no variables, no word splitting). If a write fails, the shell exits with {@link SHIM_JOIN_FAILED}
 * before the target runs; if the program cannot be found, with 127 as a shell would. The shell's
 * own few pages may be charged to the parent's cgroup; everything the target does is charged to
 * the new one.
 *
 * Argument layout: `sh -c SCRIPT evictd-shim <count> <file>... <argv>...`.
 */
const SHIM = [
  "n=$1; shift",
  'while [ "$n" -gt 0 ]; do',
  `  echo $$ > "$1" || { echo "evictd-shim: cannot join cgroup through $1" >&2; exit ${SHIM_JOIN_FAILED}; }`,
  "  shift; n=$((n - 1))",
  "done",
  'exec "$@"',
].join("\n");

/** Options beyond the required ones. */
export interface SpawnInCgroupsOptions {
  /** Start the child in its own process group (so a pod's processes can be signalled together). */
  readonly detached?: boolean;
}

/**
 * Spawns `argv` with `env` in `cwd`, inside the cgroups whose `cgroup.procs` files are given (one
 * per v1 hierarchy, one on v2; see `CgroupDriver.procFiles`). Returns the child as `spawn` does:
 * failures to join a cgroup show as exit status {@link SHIM_JOIN_FAILED} with a line on stderr.
 */
export function spawnInCgroups(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  cgroupProcFiles: readonly string[],
  stdio: StdioOptions = "pipe",
  options: SpawnInCgroupsOptions = {},
): ChildProcess {
  const command = argv[0];
  if (command === undefined || command === "")
    throw new AdapterError("spawn-invalid-argv", "cannot spawn a process: the command (argv[0]) is empty");
  // dash's exec takes no "--" and bash's reads options (-l, -a), so a leading dash cannot be passed safely.
  if (command.startsWith("-"))
    throw new AdapterError(
      "spawn-invalid-argv",
      `cannot spawn ${JSON.stringify(command)}: a command may not start with "-"`,
    );
  for (const file of cgroupProcFiles) {
    if (!file.startsWith("/") || !file.endsWith("/cgroup.procs")) {
      throw new AdapterError(
        "spawn-invalid-argv",
        `cannot spawn ${command}: ${JSON.stringify(file)} is not an absolute path to a cgroup.procs file`,
      );
    }
  }
  return spawn(
    "/bin/sh",
    ["-c", SHIM, "evictd-shim", String(cgroupProcFiles.length), ...cgroupProcFiles, ...argv],
    {
      env,
      cwd,
      stdio,
      detached: options.detached ?? false,
    },
  );
}
