/**
 * The node's two directories, checked before anything starts. stateDir is the daemon's own: created
 * when missing, refused when it is not a writable directory. manifestDir is the operator's: it must
 * exist (a mistyped path silently created would run no pods and say nothing).
 */
import { accessSync, constants, mkdirSync, rmSync, statSync } from "node:fs";
import { AdapterError, errnoCode } from "../errors.js";

export interface NodeDirectories {
  readonly stateDir: string;
  readonly manifestDir: string;
}

/**
 * Checks (and for stateDir, creates) the node's directories. Returns the first directory this
 * created (to remove again should the start fail), or undefined. Throws an AdapterError
 * (`state-dir` or `manifest-dir`) with a hint; a refused manifestDir removes what this created.
 */
export function prepareNodeDirectories(dirs: NodeDirectories): string | undefined {
  let created: string | undefined;
  try {
    created = mkdirSync(dirs.stateDir, { recursive: true });
    if (!statSync(dirs.stateDir).isDirectory())
      throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
    accessSync(dirs.stateDir, constants.W_OK | constants.X_OK);
  } catch (e) {
    const code = errnoCode(e);
    throw new AdapterError("state-dir", `cannot use stateDir ${dirs.stateDir}: ${code ?? String(e)}`, {
      hint:
        code === "EACCES" || code === "EPERM" || code === "EROFS"
          ? "run as a user that may write there (the daemon needs root for cgroups), or set stateDir in the node file to a writable directory"
          : "set stateDir in the node file to a directory (it is created when missing)",
    });
  }
  let isDirectory = false;
  try {
    isDirectory = statSync(dirs.manifestDir).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isDirectory) {
    if (created !== undefined) rmSync(created, { recursive: true, force: true });
    throw new AdapterError("manifest-dir", `manifestDir ${dirs.manifestDir} is not a directory`, {
      hint: `create it (mkdir -p ${dirs.manifestDir}) or correct manifestDir in the node file`,
    });
  }
  return created;
}
