/**
 * Test setup for the Kubernetes adapter: a fake API server, a kubeconfig for it in a temp dir, and
 * the adapter connected with deterministic retries (no jitter, sleeps recorded and skipped) and a
 * fixed clock.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ClusterNodePort } from "../../src/app/cluster/cluster-node-port.js";
import {
  connectClusterNode,
  type ConnectClusterNodeOptions,
} from "../../src/kubernetes/connect-cluster-node.js";
import {
  startFakeApiServer,
  type FakeApiServer,
  type FakeApiServerOptions,
} from "../harness/fake-api-server/fake-api-server.js";

/** The clock the adapter sees: 2026-06-26T10:20:00Z (the scrape day of summary-1.json). */
export const FIXED_NOW = Date.UTC(2026, 5, 26, 10, 20, 0);

export interface Harness {
  readonly server: FakeApiServer;
  readonly node: ClusterNodePort;
  /** The waits the adapter asked for, in order. */
  readonly sleeps: number[];
  readonly dir: string;
  readonly kubeconfig: string;
  /** Connects another adapter to the same server (same kubeconfig, sleeps and clock unless overridden). */
  connect(overrides?: Partial<ConnectClusterNodeOptions>): Promise<ClusterNodePort>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  readonly server?: FakeApiServerOptions;
  readonly connect?: Partial<ConnectClusterNodeOptions>;
  /** Called on each retry wait before it returns (e.g. to heal the server). */
  readonly onSleep?: (ms: number, index: number) => void;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const server = await startFakeApiServer(options.server);
  const dir = await mkdtemp(path.join(os.tmpdir(), "evictd-k8s-"));
  const kubeconfig = await server.writeKubeconfig(path.join(dir, "kubeconfig"));
  const sleeps: number[] = [];
  const base: ConnectClusterNodeOptions = {
    nodeName: server.nodeName,
    kubeconfig,
    retry: { jitter: 0 },
    now: () => FIXED_NOW,
    sleep: (ms) => {
      sleeps.push(ms);
      options.onSleep?.(ms, sleeps.length - 1);
      return Promise.resolve();
    },
    ...options.connect,
  };
  const connect = (overrides: Partial<ConnectClusterNodeOptions> = {}): Promise<ClusterNodePort> =>
    connectClusterNode({ ...base, ...overrides });
  let node: ClusterNodePort;
  try {
    node = await connect();
  } catch (error) {
    await server.close();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    server,
    node,
    sleeps,
    dir,
    kubeconfig,
    connect,
    async close() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
