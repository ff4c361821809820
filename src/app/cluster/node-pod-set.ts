/**
 * The pods bound to one node, kept current the way an informer keeps them: list, then watch from
 * the list's resourceVersion; a watch that ends is resumed from the last version seen (an event's
 * or a bookmark's, whichever came last, as client-go's reflector does), one whose version expired
 * (410) is replaced by a fresh list, and failures back off and list again. The
 * raw v1 Pod objects are kept as the API sent them (recorded traces hold exactly those).
 */
import { isTerminalPhase } from "../../core/pod/terminal-phase.js";
import type { ClockPort, LoggerPort } from "../ports.js";
import { WatchExpiredError, type ClusterNodePort, type PodEvent } from "./cluster-node-port.js";

/** metadata.uid, metadata.namespace/name and status.phase of a raw pod, without decoding it all. */
export function podIdentity(
  raw: unknown,
): { uid: string; key: string; phase: string | undefined; resourceVersion: string | undefined } | undefined {
  if (raw === null || typeof raw !== "object") return undefined;
  const meta = (raw as { metadata?: unknown }).metadata;
  if (meta === null || typeof meta !== "object") return undefined;
  const { uid, name, namespace, resourceVersion } = meta as Record<string, unknown>;
  if (typeof name !== "string") return undefined;
  const ns = typeof namespace === "string" && namespace !== "" ? namespace : "default";
  const status = (raw as { status?: { phase?: unknown } }).status;
  return {
    uid: typeof uid === "string" && uid !== "" ? uid : `${ns}/${name}`,
    key: `${ns}/${name}`,
    phase: typeof status?.phase === "string" ? status.phase : undefined,
    resourceVersion: typeof resourceVersion === "string" ? resourceVersion : undefined,
  };
}

export interface NodePodSetOptions {
  readonly api: ClusterNodePort;
  readonly clock: ClockPort;
  readonly log: LoggerPort;
  /** Back-off after a failed list or watch: doubles from `minMs` to `maxMs`. */
  readonly backoff?: { readonly minMs: number; readonly maxMs: number };
  /** Called after every change (list or event) with the pod's uid; `added`: the set did not hold it. */
  readonly onChange?: (uid: string, added: boolean) => void;
}

export class NodePodSet {
  private readonly o: NodePodSetOptions;
  private readonly pods = new Map<string, unknown>();
  private resourceVersion = "";
  private synced = false;
  private readonly syncedWaiters: (() => void)[] = [];

  constructor(options: NodePodSetOptions) {
    this.o = options;
  }

  /** Whether the first list has arrived. */
  get hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once the first list has arrived (or at once if it has). */
  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncedWaiters.push(resolve));
  }

  /** Every pod on the node, in the order first seen (terminal ones included). */
  all(): unknown[] {
    return [...this.pods.values()];
  }

  /** Pods that are neither Succeeded nor Failed. */
  active(): unknown[] {
    return this.all().filter((p) => !isTerminalPhase(podIdentity(p)?.phase));
  }

  /** The version a resumed watch starts from. */
  get version(): string {
    return this.resourceVersion;
  }

  /** How many pods the node has (terminal ones included). */
  get size(): number {
    return this.pods.size;
  }

  get(uid: string): unknown {
    return this.pods.get(uid);
  }

  /** Lists once; replaces the whole set. */
  async list(signal?: AbortSignal): Promise<void> {
    const r = await this.o.api.listPods(signal);
    const next = new Map<string, unknown>();
    for (const raw of r.items) {
      const id = podIdentity(raw);
      if (id !== undefined) next.set(id.uid, raw);
    }
    const changed = new Set([...this.pods.keys(), ...next.keys()]);
    const added = new Set([...next.keys()].filter((uid) => !this.pods.has(uid)));
    this.pods.clear();
    for (const [uid, raw] of next) this.pods.set(uid, raw);
    this.resourceVersion = r.resourceVersion;
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncedWaiters.splice(0)) w();
    }
    for (const uid of changed) this.o.onChange?.(uid, added.has(uid));
  }

  /** Applies one watch event. */
  apply(event: PodEvent): void {
    if (event.type === "BOOKMARK") {
      const version = (event.pod as { metadata?: { resourceVersion?: unknown } } | null)?.metadata
        ?.resourceVersion;
      if (typeof version === "string" && version !== "") this.resourceVersion = version;
      return;
    }
    const id = podIdentity(event.pod);
    if (id === undefined) return;
    if (id.resourceVersion !== undefined) this.resourceVersion = id.resourceVersion;
    const added = event.type !== "DELETED" && !this.pods.has(id.uid);
    if (event.type === "DELETED") this.pods.delete(id.uid);
    else this.pods.set(id.uid, event.pod);
    this.o.onChange?.(id.uid, added);
  }

  /** Lists and watches until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const { minMs, maxMs } = this.o.backoff ?? { minMs: 500, maxMs: 30_000 };
    let delay = minMs;
    let needList = true;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.list(signal);
          needList = false;
        }
        await this.o.api.watchPods(this.resourceVersion, (e) => this.apply(e), signal);
        delay = minMs; // a watch that ran and ended normally: resume at once
      } catch (e) {
        if (signal.aborted) break;
        needList = true;
        if (e instanceof WatchExpiredError) {
          this.o.log.info({ resourceVersion: this.resourceVersion }, "pod watch expired: listing again");
          continue;
        }
        this.o.log.warn({ err: String(e), retryInMs: delay }, "pod list/watch failed: retrying");
        await this.o.clock.sleep(delay, signal);
        delay = Math.min(maxMs, delay * 2);
      }
    }
  }
}
