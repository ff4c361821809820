/**
 * Where an in-place resize stands, as the Pod's status reports it. Since 1.33 the kubelet writes
 * two conditions: `PodResizePending` (reason `Deferred`: the node may fit it later; `Infeasible`:
 * it never will; with a message saying why) and `PodResizeInProgress` (allocated, being actuated;
 * reason `Error` with a message when actuation failed). Before, the single `status.resize` field
 * said `Proposed`, `InProgress`, `Deferred` or `Infeasible`; it is deprecated and read only when
 * no resize condition is there.
 */
import { pathKey, type IssueList } from "../issues.js";
import type { PodResize, ResizeState } from "../model.js";
import { isRawObject, type RawObject } from "../raw/raw-object.js";
import { readString } from "./raw-fields.js";

const RESIZE_PENDING = "PodResizePending";
const RESIZE_IN_PROGRESS = "PodResizeInProgress";
const LEGACY_STATES: readonly ResizeState[] = ["Proposed", "InProgress", "Deferred", "Infeasible"];

function pendingState(reason: string | undefined): ResizeState {
  return reason === "Deferred" || reason === "Infeasible" ? reason : "Pending";
}

function resize(state: ResizeState, message: string | undefined): PodResize {
  return message !== undefined && message !== "" ? { state, message } : { state };
}

/** A string member of a condition, or undefined. */
function text(condition: RawObject, key: string): string | undefined {
  const value = condition[key];
  return typeof value === "string" ? value : undefined;
}

/**
 * The resize conditions that hold (status `True`). Conditions are read as the status views read
 * them (pod-status-view.ts): `conditions` that are not a list, and entries that are not objects
 * with a string type and status, are left out without an issue, since conditions only inform and
 * never change what the engine decides.
 */
function fromConditions(status: RawObject): PodResize | undefined {
  const raw = status["conditions"];
  const list: readonly unknown[] = Array.isArray(raw) ? raw : [];
  let pending: PodResize | undefined;
  let inProgress: PodResize | undefined;
  for (const item of list) {
    if (!isRawObject(item) || text(item, "status") !== "True") continue;
    const type = text(item, "type");
    const message = text(item, "message");
    if (type === RESIZE_PENDING) pending ??= resize(pendingState(text(item, "reason")), message);
    else if (type === RESIZE_IN_PROGRESS) inProgress ??= resize("InProgress", message);
  }
  // Both hold when a new resize waits while an earlier one is being actuated: the waiting one is
  // why the spec and the allocation differ, so it is the one to tell.
  return pending ?? inProgress;
}

/** The deprecated `status.resize`; an unknown value is reported and ignored. */
function fromLegacyField(status: RawObject, statusPath: string, issues: IssueList): PodResize | undefined {
  const value = readString(status, "resize", statusPath, issues);
  if (value === undefined || value === "") return undefined;
  if ((LEGACY_STATES as readonly string[]).includes(value)) return { state: value as ResizeState };
  issues.warning(
    pathKey(statusPath, "resize"),
    "invalid-value",
    `unknown resize status ${JSON.stringify(value)} (expected Proposed, InProgress, Deferred or Infeasible): ignored`,
  );
  return undefined;
}

/** The resize the status reports, conditions first; undefined when none is under way. */
export function decodeResizeStatus(
  status: RawObject,
  statusPath: string,
  issues: IssueList,
): PodResize | undefined {
  // status.resize is read even when a condition answers, so a malformed value is always reported.
  const fromCondition = fromConditions(status);
  const fromField = fromLegacyField(status, statusPath, issues);
  return fromCondition ?? fromField;
}
