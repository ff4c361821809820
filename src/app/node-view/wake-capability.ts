/**
 * How a wake source the kernel refused shows in the daemon's capability list: one wording, so that
 * /status says it and /metrics counts it (evictd_wake_sources_not_armed) from the same lines.
 */
export const NOT_ARMED = "not armed: ";

export function notArmedCapability(reason: string): string {
  return `${NOT_ARMED}${reason} (the other wake sources and the housekeeping tick still run)`;
}
