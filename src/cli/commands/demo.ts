/**
 * `evictd demo`: a small node with a few pods that shows, live, what the eviction manager does: a
 * pod leaking memory is evicted the moment the kernel reports the threshold crossed, a pod filling
 * its emptyDir past its sizeLimit is evicted for local storage, the others (mixed QoS, a critical
 * pod) keep running. It ends by itself, prints a summary, and leaves no process, cgroup or file
 * behind, also on Ctrl-C.
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LoggerPort } from "../../app/ports.js";
import { runDaemon } from "./run.js";
import { EXIT } from "../../errors.js";
import { stopOnSignals } from "../stop-on-signals.js";
import { onReaderGone } from "../output/broken-pipe.js";
import { count } from "../../app/plural.js";

const NODE_FILE = `# The demo node: 640Mi of memory, evict when less than 160Mi is available.
name: demo
capacity: {memory: 640Mi, pids: 1024}
systemReserved: {memory: 64Mi}
stateDir: ./state
manifestDir: ./pods
config:
  evictionHard: {memory.available: 160Mi}
  mergeDefaultEvictionSettings: true
housekeepingInterval: 2s
listen: 127.0.0.1:0
`;

function manifests(node: string): Record<string, string> {
  const js = (code: string): string => JSON.stringify([node, "-e", code]);
  return {
    "leaky-cache.yaml": `# Burstable: requests 64Mi, then leaks 8 MiB every 200 ms.
apiVersion: v1
kind: Pod
metadata: {name: leaky-cache, namespace: shop}
spec:
  containers:
    - name: cache
      command: ${js("const a=[];setTimeout(()=>setInterval(()=>{const b=Buffer.allocUnsafe(8<<20);b.fill(7);a.push(b)},200),3000)")}
      resources: {requests: {memory: 64Mi}, limits: {memory: 600Mi}}
`,
    "web.yaml": `# Guaranteed: 96Mi requested and limited, uses 40 MiB.
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec:
  containers:
    - name: app
      command: ${js("const b=Buffer.alloc(40<<20,1);setInterval(()=>b[0]++,1000)")}
      resources: {requests: {memory: 96Mi, cpu: 100m}, limits: {memory: 96Mi, cpu: 100m}}
`,
    "batch.yaml": `# BestEffort, priority 0: idle.
apiVersion: v1
kind: Pod
metadata: {name: batch, namespace: jobs}
spec:
  containers:
    - name: worker
      command: ["sleep", "3600"]
`,
    "log-shipper.yaml": `# Burstable: writes 1 MiB a second into an emptyDir limited to 4Mi.
apiVersion: v1
kind: Pod
metadata: {name: log-shipper, namespace: logging}
spec:
  volumes: [{name: buffer, emptyDir: {sizeLimit: 4Mi}}]
  containers:
    - name: shipper
      command: ${js("const fs=require('fs');let i=0;setInterval(()=>fs.writeFileSync(process.env.EVICTD_VOLUME_BUFFER+'/chunk-'+(i++),Buffer.alloc(1<<20,1)),1000)")}
      resources: {requests: {memory: 16Mi}}
`,
    "node-agent.yaml": `# Critical (system-node-critical): never evicted, whatever it uses.
apiVersion: v1
kind: Pod
metadata: {name: node-agent, namespace: kube-system}
spec:
  priorityClassName: system-node-critical
  containers:
    - name: agent
      command: ${js("const b=Buffer.alloc(24<<20,1);setInterval(()=>b[0]++,1000)")}
`,
  };
}

const stamp = (): string => new Date().toISOString().slice(11, 19);

/** Prints what matters for a person watching; everything else stays quiet. */
function humanLogger(out: (line: string) => void): LoggerPort & { evictions: string[] } {
  const evictions: string[] = [];
  const show = (fields: Record<string, unknown>, message: string): void => {
    if (message.startsWith("evicted ") || message.startsWith("rejected ")) {
      evictions.push(message);
      out(`${stamp()}  ${message.length > 220 ? `${message.slice(0, 217)}...` : message}`);
    } else if (message.startsWith("evictd running")) {
      out(`${stamp()}  ${message}`);
      for (const c of (fields["capabilities"] as string[] | undefined) ?? []) out(`          - ${c}`);
    }
  };
  return {
    evictions,
    info: show,
    warn: (f, m) => {
      if (m.startsWith("rejected ")) show(f, m);
    },
    error: (f, m) => out(`${stamp()}  error: ${m} ${JSON.stringify(f)}`),
  };
}

export async function demoCommand(opts: { seconds: number }): Promise<number> {
  // Once the reader of stdout is gone (`evictd demo | head -3`, or `| tee log` stopped with
  // Ctrl-C), there is nobody to show the demo to: it stops and cleans up, silently.
  let readerGone = false;
  const out = (line: string): void => {
    if (!readerGone) process.stdout.write(line + "\n");
  };
  const dir = mkdtempSync(join(tmpdir(), "evictd-demo-"));
  const stop = stopOnSignals(() => out(`${stamp()}  interrupted: stopping and cleaning up`));
  onReaderGone(process.stdout, () => {
    readerGone = true;
    stop.controller.abort();
  });
  const timer = setTimeout(() => stop.controller.abort(), opts.seconds * 1000);
  const log = humanLogger(out);
  let url: string | undefined;
  let ticker: NodeJS.Timeout | undefined;
  try {
    writeFileSync(join(dir, "node.yaml"), NODE_FILE);
    mkdirSync(join(dir, "pods"));
    for (const [name, text] of Object.entries(manifests(process.execPath)))
      writeFileSync(join(dir, "pods", name), text);
    out(`evictd demo: a 640Mi node with 5 pods, for ${opts.seconds}s (Ctrl-C to stop early). Files: ${dir}`);
    await runDaemon({
      nodeFile: join(dir, "node.yaml"),
      dryRun: false,
      cleanupOnExit: true,
      logger: log,
      signal: stop.signal,
      onReady: (info) => {
        url = info.url;
        ticker = setInterval(() => void showStatus(url ?? "", out), 3000);
      },
    });
    if (ticker) clearInterval(ticker);
    out("");
    out(`summary: ${count(log.evictions.length, "eviction")}`);
    for (const e of log.evictions) out(`  - ${e.length > 160 ? `${e.slice(0, 157)}...` : e}`);
    out("the node's cgroups and processes are gone; the demo directory is removed.");
    return EXIT.ok;
  } finally {
    if (ticker) clearInterval(ticker);
    clearTimeout(timer);
    stop.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One status line from the daemon's own /status endpoint. */
async function showStatus(url: string, out: (line: string) => void): Promise<void> {
  try {
    const r = await fetch(`${url}/status`, { signal: AbortSignal.timeout(1000) });
    const s = (await r.json()) as {
      conditions?: { type: string; status: string }[];
      signals?: { signal: string; available?: string }[];
      pods?: { pod: string; phase: string; reason?: string }[];
      ranking?: { next?: string | null } | null;
    };
    const mem = s.signals?.find((x) => x.signal === "memory.available")?.available ?? "?";
    const pressure = (s.conditions ?? []).filter((c) => c.status === "True").map((c) => c.type);
    const pods = (s.pods ?? [])
      .map((p) => `${p.pod.split("/")[1] ?? p.pod}:${p.reason ?? p.phase}`)
      .join(" ");
    out(
      `${stamp()}  memory available ${mem}${pressure.length ? `, ${pressure.join(", ")}` : ""}; next to go: ${s.ranking?.next ?? "-"}; ${pods}`,
    );
  } catch {
    // The daemon may be stopping; the next tick will tell.
  }
}
