/**
 * "replaying: 1,234 steps" on stderr while a long replay runs, redrawn at most every 200 ms and
 * erased at the end; only when stderr is a terminal (a pipe or a log file gets nothing).
 */
const REDRAW_MS = 200;
/** Replays shorter than this never show it. */
const SHOW_AFTER_MS = 500;

export class ReplayProgress {
  readonly #out: NodeJS.WriteStream;
  readonly #enabled: boolean;
  readonly #started = Date.now();
  #last = 0;
  #shown = false;

  constructor(out: NodeJS.WriteStream) {
    this.#out = out;
    this.#enabled = out.isTTY;
  }

  step(count: number): void {
    if (!this.#enabled || (count & 63) !== 0) return;
    const now = Date.now();
    if (now - this.#started < SHOW_AFTER_MS || now - this.#last < REDRAW_MS) return;
    this.#last = now;
    this.#shown = true;
    this.#out.write(
      `\rreplaying: ${count.toLocaleString("en-US")} steps (${((now - this.#started) / 1000).toFixed(1)} s)`,
    );
  }

  end(): void {
    if (this.#shown) this.#out.write("\r\x1b[2K");
  }
}
