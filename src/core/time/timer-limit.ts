/**
 * The longest delay a Node.js timer holds: setTimeout and setInterval keep it as a signed 32-bit
 * count of milliseconds, and a longer one fires after 1 ms instead (with a TimeoutOverflowWarning).
 * Durations that feed a timer are checked against it, or waited out in steps no longer than it.
 */
import { formatDurationMs } from "./duration.js";

export const TIMER_MAX_MS = 2 ** 31 - 1;

/** The limit as a Go duration (`596h31m23.647s`), for messages. */
export const TIMER_MAX_TEXT = formatDurationMs(TIMER_MAX_MS);
