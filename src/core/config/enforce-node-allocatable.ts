/**
 * Validation of `enforceNodeAllocatable` (upstream `ValidateKubeletConfiguration`, exact texts).
 * Its only effect on eviction is that `pods` turns on the `allocatableMemory.available` copies; the
 * checks that need other fields (`systemReservedCgroup`, `cgroupsPerQOS`) are out of scope.
 */
import type { IssueList } from "../issues.js";
import type { SettingList } from "./setting-types.js";

export const NODE_ALLOCATABLE_PODS = "pods";
const SYSTEM_RESERVED = "system-reserved";
const SYSTEM_RESERVED_COMPRESSIBLE = "system-reserved-compressible";
const KUBE_RESERVED = "kube-reserved";
const KUBE_RESERVED_COMPRESSIBLE = "kube-reserved-compressible";
const NONE = "none";

const VALID = [
  NODE_ALLOCATABLE_PODS,
  SYSTEM_RESERVED,
  SYSTEM_RESERVED_COMPRESSIBLE,
  KUBE_RESERVED,
  KUBE_RESERVED_COMPRESSIBLE,
];
const FIELD = "enforceNodeAllocatable (--enforce-node-allocatable)";
const q = (s: string): string => JSON.stringify(s);

/** Pushes upstream's errors for `enforceNodeAllocatable` into `issues`. */
export function validateEnforceNodeAllocatable(list: SettingList, issues: IssueList): void {
  const values = new Set(list.items.map((i) => i.value));
  const exclusive: readonly (readonly [string, string])[] = [
    [SYSTEM_RESERVED, SYSTEM_RESERVED_COMPRESSIBLE],
    [KUBE_RESERVED, KUBE_RESERVED_COMPRESSIBLE],
  ];
  for (const [a, b] of exclusive) {
    if (values.has(a) && values.has(b)) {
      issues.error(
        list.path,
        "invalid-enforce-node-allocatable",
        `invalid configuration: both ${q(a)} and ${q(b)} cannot be specified together in ${FIELD}`,
      );
    }
  }
  const seen = new Set<string>();
  for (const item of list.items) {
    if (seen.has(item.value)) {
      issues.error(
        item.path,
        "invalid-enforce-node-allocatable",
        `invalid configuration: duplicated enforcements ${q(item.value)} in ${FIELD}`,
      );
      continue;
    }
    seen.add(item.value);
    if (item.value === NONE) {
      if (list.items.length > 1) {
        issues.error(
          item.path,
          "invalid-enforce-node-allocatable",
          `invalid configuration: ${FIELD} may not contain additional enforcements when ${q(NONE)} is specified`,
        );
      }
    } else if (!VALID.includes(item.value)) {
      issues.error(
        item.path,
        "invalid-enforce-node-allocatable",
        `invalid configuration: option ${q(item.value)} specified for ${FIELD}. Valid options are ${[...VALID].map(q).join(", ")} or ${q(NONE)}`,
      );
    }
  }
}
