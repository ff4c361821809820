/**
 * One pids reading from a cgroup's pids controller directory. The controller's files are the same
 * under v1 and v2: `pids.current`, `pids.max` (`max` for no limit) and the `max` count of refused
 * forks in `pids.events`. The drivers differ only in where that directory is, and in what they say
 * when there is none (v1: the hierarchy is not mounted; v2: the controller is not delegated).
 */
import { join } from "node:path";
import type { PidsReading } from "./cgroup-driver.js";
import { counter, type CgroupFiles } from "./cgroup-files.js";

export async function readPidsController(files: CgroupFiles, dir: string): Promise<PidsReading> {
  const max = await files.readLimit(join(dir, "pids.max"));
  return {
    current: Number(await files.readInteger(join(dir, "pids.current"))),
    max: max === undefined ? undefined : Number(max),
    limitHits: counter(await files.readKeyed(join(dir, "pids.events")), "max"),
  };
}
