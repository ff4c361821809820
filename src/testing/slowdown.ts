/**
 * How much slower than this machine the suites run (EVICTD_TEST_SLOWDOWN, default 1): the cgroup
 * v2 guest (scripts/v2-guest.sh) emulates its CPU and sets it. Every wait for something to happen,
 * and every bound on how long something may take, stretches by it; nothing else about a test changes.
 */
export const SLOWDOWN = ((): number => {
  const factor = Number(process.env["EVICTD_TEST_SLOWDOWN"] ?? "1");
  return Number.isFinite(factor) && factor >= 1 ? factor : 1;
})();

/** `ms` stretched by {@link SLOWDOWN}. */
export const scaled = (ms: number): number => Math.round(ms * SLOWDOWN);
