/**
 * Output held back until the end of a replay: nothing may reach stdout before every step has been
 * read and checked (invalid input prints nothing), and the first lines (the config record, the
 * table's header) are only known at the end. Held in joined chunks of about a megabyte, so that
 * thousands of records cost a handful of strings, and written a chunk at a time, each after the
 * previous one was accepted, so that at most one chunk is in flight and back-pressure is honoured.
 */
import type { Writable } from "node:stream";

const CHUNK = 1 << 20;

function writeOne(stream: Writable, data: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    stream.write(data, (err) => (err ? reject(err) : resolve()));
  });
}

export class HeldOutput {
  private readonly chunks: string[] = [];
  private parts: string[] = [];
  private size = 0;

  write(s: string): void {
    this.parts.push(s);
    this.size += s.length;
    if (this.size >= CHUNK) this.seal();
  }

  private seal(): void {
    if (this.parts.length === 0) return;
    this.chunks.push(this.parts.join(""));
    this.parts = [];
    this.size = 0;
  }

  /** Writes `head`, then everything held, in order; what is written is let go. */
  async writeTo(stream: Writable, head: string): Promise<void> {
    this.seal();
    if (head !== "") await writeOne(stream, head);
    for (let chunk = this.chunks.shift(); chunk !== undefined; chunk = this.chunks.shift())
      await writeOne(stream, chunk);
  }
}
