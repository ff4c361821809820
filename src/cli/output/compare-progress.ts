/**
 * The comparison's progress on stderr: traces done, steps read and the time so far, with an
 * estimate of the time left. On a terminal it is redrawn in place (at most every 200 ms) and erased
 * at the end; elsewhere (a CI log) one line every 10 s. A comparison shorter than 2 s shows none.
 */
import type { PoolProgress } from "../../fleet/worker-pool.js";

const SHOW_AFTER_MS = 2000;

export class CompareProgress {
  readonly #out: NodeJS.WriteStream;
  readonly #tty: boolean;
  readonly #started = Date.now();
  #last = 0;
  #shown = false;

  constructor(out: NodeJS.WriteStream) {
    this.#out = out;
    this.#tty = out.isTTY;
  }

  update(p: PoolProgress & { readonly phase: "replay" | "reports" }): void {
    const now = Date.now();
    const elapsed = now - this.#started;
    if (elapsed < SHOW_AFTER_MS || now - this.#last < (this.#tty ? 200 : 10_000)) return;
    this.#last = now;
    const left =
      p.tasksDone > 0 && p.tasksDone < p.tasks
        ? `, ~${Math.round(((elapsed / p.tasksDone) * (p.tasks - p.tasksDone)) / 1000)} s left`
        : "";
    const what = p.phase === "replay" ? "compare" : "compare: reports";
    const line = `${what}: ${p.tasksDone}/${p.tasks} traces, ${p.steps.toLocaleString("en-US")} steps, ${(elapsed / 1000).toFixed(0)} s${left}`;
    this.#shown = true;
    this.#out.write(this.#tty ? `\r\x1b[2K${line}` : `${line}\n`);
  }

  end(): void {
    if (this.#shown && this.#tty) this.#out.write("\r\x1b[2K");
  }
}
