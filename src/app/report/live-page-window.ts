/** How far back the daemon's live page at `/` goes: the steps the journal keeps for it. */
export const LIVE_WINDOW_MS = 15 * 60 * 1000;
