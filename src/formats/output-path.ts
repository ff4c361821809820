/**
 * Whether an output file can be written, asked before a command starts its work (contacting a
 * cluster, recording for an hour): a directory, a missing parent directory, a read-only file
 * system or a refused permission is reported at once, naming the path, instead of after the work
 * or with a stack trace. Nothing is created or changed by the check; what it cannot see (a disk
 * that fills up later) is the writer's to report.
 */
import { accessSync, constants, statSync, type Stats } from "node:fs";
import path from "node:path";
import { errnoCode } from "../errors.js";

function why(error: unknown, what: string): string {
  switch (errnoCode(error)) {
    case "EROFS":
      return `${what} is on a read-only file system`;
    case "EACCES":
      return `permission denied on ${what}`;
    case "EPERM":
      return `${what} may not be written (operation not permitted)`;
    case "ENOTDIR":
      return "a part of the path is not a directory";
    case "ENOENT":
      return `${what} does not exist`;
    default:
      return `${what}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Why `file` cannot be created or written to, or undefined when it can (as far as can be told now). */
export function unwritableReason(file: string): string | undefined {
  let stats: Stats;
  try {
    stats = statSync(file);
  } catch (error) {
    if (errnoCode(error) !== "ENOENT") return why(error, "the path");
    const dir = path.dirname(path.resolve(file));
    let dirStats: Stats;
    try {
      dirStats = statSync(dir);
    } catch (dirError) {
      return why(dirError, `the directory ${dir}`);
    }
    if (!dirStats.isDirectory()) return `${dir} is not a directory`;
    try {
      accessSync(dir, constants.W_OK | constants.X_OK);
    } catch (dirError) {
      return why(dirError, `the directory ${dir}`);
    }
    return undefined;
  }
  if (stats.isDirectory()) return "it is a directory, not a file";
  try {
    accessSync(file, constants.W_OK);
  } catch (error) {
    return why(error, "the file");
  }
  return undefined;
}
