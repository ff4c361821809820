/**
 * Where a node's kubelet puts its pods' cgroups, from its configz: `cgroupDriver` (default
 * cgroupfs, the KubeletConfiguration default) and `cgroupRoot` (default "/"). A value of the wrong
 * type is an {@link InputError} naming the field: guessing would read some other cgroups.
 */
import { isRawObject } from "../../core/raw/raw-object.js";
import { InputError } from "../../errors.js";

export interface KubeletCgroupSettings {
  readonly driver: "cgroupfs" | "systemd";
  readonly cgroupRoot: string;
}

export function kubeletCgroupSettings(configz: unknown): KubeletCgroupSettings {
  const body = isRawObject(configz) ? configz : {};
  const driver = body["cgroupDriver"] ?? "cgroupfs";
  const cgroupRoot = body["cgroupRoot"] ?? "/";
  const issues = [];
  if (driver !== "cgroupfs" && driver !== "systemd")
    issues.push({
      severity: "error" as const,
      path: "configz.cgroupDriver",
      code: "invalid",
      message: `${JSON.stringify(driver)} is not a cgroup driver evictd knows (cgroupfs, systemd); pass --cgroup-driver`,
    });
  if (typeof cgroupRoot !== "string")
    issues.push({
      severity: "error" as const,
      path: "configz.cgroupRoot",
      code: "invalid",
      message: `${JSON.stringify(cgroupRoot)} is not a cgroup path; pass --cgroup-root`,
    });
  if (issues.length > 0) throw new InputError(issues);
  return {
    driver: driver as KubeletCgroupSettings["driver"],
    cgroupRoot: (cgroupRoot as string) === "" ? "/" : (cgroupRoot as string),
  };
}
