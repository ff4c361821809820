/**
 * Every pod a scenario mentions, initial then added, once each by UID: the config record lists them
 * and the table counts them. Built step by step, so a streamed trace need not be kept to know its
 * pods.
 */
import type { Pod } from "../../core/model.js";

export class PodRoster {
  private readonly byUid = new Map<string, Pod>();

  /** Among the initial pods, a later definition of a UID replaces an earlier one in its place. */
  constructor(initial: readonly Pod[] = []) {
    for (const p of initial) this.byUid.set(p.uid, p);
  }

  /** Records pods not seen before; a UID already known keeps its first definition. */
  add(pods: readonly Pod[]): void {
    for (const p of pods) if (!this.byUid.has(p.uid)) this.byUid.set(p.uid, p);
  }

  get size(): number {
    return this.byUid.size;
  }

  /** In the order first seen. */
  get pods(): Pod[] {
    return [...this.byUid.values()];
  }
}
