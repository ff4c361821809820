/**
 * Batches output into large writes: a long replay emits thousands of lines, and one write per
 * line would dominate its run time. Honours back-pressure on flush.
 */
import type { Writable } from "node:stream";

export class BufferedWriter {
  private chunks: string[] = [];
  private size = 0;
  private pending: Promise<void> = Promise.resolve();
  private readonly stream: Writable;

  constructor(stream: Writable) {
    this.stream = stream;
  }

  write(s: string): void {
    this.chunks.push(s);
    this.size += s.length;
    if (this.size >= 1 << 20) this.drain();
  }

  private drain(): void {
    if (this.chunks.length === 0) return;
    const data = this.chunks.join("");
    this.chunks = [];
    this.size = 0;
    const stream = this.stream;
    this.pending = this.pending.then(
      () =>
        new Promise<void>((resolve, reject) => {
          stream.write(data, (err) => (err ? reject(err) : resolve()));
        }),
    );
  }

  async flush(): Promise<void> {
    this.drain();
    await this.pending;
  }
}
