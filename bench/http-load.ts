/**
 * HTTP load on a daemon, in a process of its own: `clients` keep-alive connections on loopback,
 * each asking for /status and /metrics in turn as fast as it is answered, until SIGTERM. On exit it
 * prints one JSON line: the requests answered and failed. Used by `reaction-bench --http-clients N`
 * to measure whether serving HTTP can delay an eviction (the daemon serves HTTP on the thread
 * that runs its eviction loop).
 *
 *   node dist/bench/http-load.js URL CLIENTS
 */
import { Agent, get } from "node:http";

const [url, clientsText] = process.argv.slice(2);
const clients = Number(clientsText);
if (url === undefined || !Number.isInteger(clients) || clients < 1) {
  console.error("usage: http-load URL CLIENTS");
  process.exit(2);
}
const agent = new Agent({ keepAlive: true, maxSockets: clients });
const PATHS = ["/status", "/metrics"];
let answered = 0;
let failed = 0;
let stopping = false;

function ask(client: number, n: number): void {
  if (stopping) return;
  const path = PATHS[(client + n) % PATHS.length] ?? "/status";
  const req = get(`${url}${path}`, { agent }, (res) => {
    res.resume();
    res.on("end", () => {
      if (res.statusCode === 200) answered++;
      else failed++;
      ask(client, n + 1);
    });
  });
  req.on("error", () => {
    failed++;
    if (!stopping) setTimeout(() => ask(client, n + 1), 10);
  });
}

for (let c = 0; c < clients; c++) ask(c, 0);
process.on("SIGTERM", () => {
  stopping = true;
  process.stdout.write(`${JSON.stringify({ answered, failed })}\n`);
  process.exit(0);
});
