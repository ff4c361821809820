/**
 * A small seeded PRNG (sfc32) for the benchmark data generators: the same seed gives the same trace
 * on every machine and Node version, which `Math.random` cannot promise.
 */

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    // sfc32 state from the seed; a few rounds mix a small seed into every word.
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let i = 0; i < 15; i++) this.nextUint32();
  }

  /** A uniform 32-bit unsigned integer. */
  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4_294_967_296;
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** Uniform in [lo, hi). */
  range(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error("pick from an empty list");
    return item;
  }

  /** Lower-case alphanumerics as in generated pod names (`x2kqz`). */
  suffix(length: number): string {
    const alphabet = "bcdfghjklmnpqrstvwxz2456789"; // what Kubernetes' rand.String uses
    let out = "";
    for (let i = 0; i < length; i++) out += alphabet[this.int(0, alphabet.length - 1)] ?? "x";
    return out;
  }

  /** A random (version 4) UUID, like the API server assigns. */
  uuid(): string {
    const hex = (n: number, width: number): string => n.toString(16).padStart(width, "0");
    const w1 = this.nextUint32();
    const w2 = this.nextUint32();
    const w3 = this.nextUint32();
    const w4 = this.nextUint32();
    return (
      `${hex(w1, 8)}-${hex(w2 >>> 16, 4)}-${hex(((w2 & 0x0fff) | 0x4000) >>> 0, 4)}-` +
      `${hex(((w3 >>> 16) & 0x3fff) | 0x8000, 4)}-${hex(w3 & 0xffff, 4)}${hex(w4, 8)}`
    );
  }
}
