/**
 * The four prom-client classes the daemon uses (Registry, Counter, Gauge, Histogram), loaded from
 * the package's own modules instead of its index. The index also loads the Pushgateway client
 * (http, https and with them tls, crypto and zlib), the cluster aggregator and the default
 * process metrics, none of which the daemon uses: importing `evictd run` loaded 7 more
 * Node built-in modules for them, and their objects stayed live in the main thread's heap. The
 * types are the package's own; the package is pinned, and a test checks these are the very
 * classes its index exports.
 */
import { createRequire } from "node:module";
import type * as PromClient from "prom-client";

const require = createRequire(import.meta.url);

export const Registry = require("prom-client/lib/registry.js") as typeof PromClient.Registry;
export type Registry = PromClient.Registry;

export const Counter = require("prom-client/lib/counter.js") as typeof PromClient.Counter;
export type Counter<T extends string = string> = PromClient.Counter<T>;

export const Gauge = require("prom-client/lib/gauge.js") as typeof PromClient.Gauge;
export type Gauge<T extends string = string> = PromClient.Gauge<T>;

export const Histogram = require("prom-client/lib/histogram.js") as typeof PromClient.Histogram;
export type Histogram<T extends string = string> = PromClient.Histogram<T>;
