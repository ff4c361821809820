/**
 * Whether `evictd watch` asks before an eviction when the operator does not say
 * (`--[no-]eviction-preflight`): the default differs by enforce mode, for the reasons below.
 */
import type { EnforceMode } from "./cluster-pods.js";

/**
 * Whether a pod a budget protects is skipped for the next one. On by default through the Eviction
 * API: the API server refuses a pod its PodDisruptionBudget protects whatever evictd does, and
 * unless that refusal is taken as the answer it costs the step (retried, then a failed kill) and
 * every step after it while the pod ranks first; with it, the next pod goes. Off by default with deletion,
 * which is the kubelet's own way and consults no budget: skipping protected pods there changes
 * which pod goes, a choice the operator makes with --eviction-preflight. Never in shadow mode.
 */
export function evictionPreflightFor(mode: EnforceMode, asked: boolean | undefined): boolean {
  if (mode === "shadow") return false;
  return asked ?? mode === "eviction-api";
}
