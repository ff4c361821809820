/**
 * Where the collector tests put a test pod's files, and the `ActivePodInfo` parts that point at
 * them. The collector computes no path of its own (the pod runtime hands it every one), so any
 * layout would do; this one reads like the runtime's to keep the tests familiar.
 */
import { join } from "node:path";
import type { ActiveContainerInfo, ActiveVolumeInfo } from "../active-pod-info.js";

/** The files of one test pod under `dir`. */
export interface TestPodFiles {
  readonly dir: string;
  /** The directory of the containers' logs. */
  readonly logsDir: string;
  logFile(container: string): string;
  rootfsDir(container: string): string;
  volumeDir(volume: string): string;
  /** A container of this pod, with its log file and writable directory filled in. */
  container(info: Omit<ActiveContainerInfo, "logFile" | "rootfsDir">): ActiveContainerInfo;
  /** A volume of this pod, with its directory filled in. */
  volume(info: Omit<ActiveVolumeInfo, "dir">): ActiveVolumeInfo;
}

/** Test pod files under `<root>/pods/<name>`: `logs/<c>.log`, `containers/<c>/rootfs/`, `volumes/<v>/`. */
export function testPodFiles(root: string, name: string): TestPodFiles {
  const dir = join(root, "pods", name);
  const logFile = (c: string): string => join(dir, "logs", `${c}.log`);
  const rootfsDir = (c: string): string => join(dir, "containers", c, "rootfs");
  const volumeDir = (v: string): string => join(dir, "volumes", v);
  return {
    dir,
    logsDir: join(dir, "logs"),
    logFile,
    rootfsDir,
    volumeDir,
    container: (info) => ({ ...info, logFile: logFile(info.name), rootfsDir: rootfsDir(info.name) }),
    volume: (info) => ({ ...info, dir: volumeDir(info.name) }),
  };
}
