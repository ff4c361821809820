/**
 * What `evictd run` takes hold of before it runs anything, in this order: the state directory, its
 * lock, the final-status journal's reserved space, and the node cgroup (one daemon per node: the
 * state directory's lock first, then the node cgroup's, taken by createNode with `exclusive`).
 * Each step that creates something pushes its undo; a step refused undoes the ones before it. What
 * a daemon that ran gives back at exit, its node left for the next one to adopt, is here too.
 */
import { rmSync } from "node:fs";
import { resolve } from "node:path";
import type { LoggerPort } from "../app/ports.js";
import type { NodeSpec } from "../core/node/node-spec.js";
import { createCgroupDriver } from "../linux/cgroups/create-cgroup-driver.js";
import { detectOwnCgroups, type CgroupDetection } from "../linux/cgroups/detect-cgroups.js";
import type { CgroupDriver, NodeCgroups } from "../linux/cgroups/cgroup-driver.js";
import {
  FinalStatusJournal,
  openFinalStatusJournal,
  type JournalReservation,
} from "../runtime/final-status-journal.js";
import { prepareNodeDirectories } from "../runtime/node-directories.js";
import { lockStateDir, type StateDirLock } from "../runtime/state-dir-lock.js";
import type { StartUndo } from "./start-undo.js";

/** The node as the start prepared it: what the pods, the loop thread and /status are wired with. */
export interface PreparedNode {
  /** What this daemon can and cannot do, as /status and the start's log line say; the start adds to it. */
  readonly capabilities: string[];
  readonly stateLock: StateDirLock;
  /** The reserved space for the end of every pod (the journal as found: `reservation.latest`). */
  readonly reservation: JournalReservation;
  readonly finalStatuses: FinalStatusJournal;
  /** Which cgroups this process is in, as the loop thread's wake sources are planned on. */
  readonly detection: CgroupDetection;
  /** The cgroup driver and the node it created or adopted; both undefined without cgroups. */
  readonly driver: CgroupDriver | undefined;
  readonly nodeCgroups: NodeCgroups | undefined;
}

/**
 * Prepares the node of `spec` (read from `nodeFile`), pushing onto `undo` what each step created.
 * Throws what refused the start (an AdapterError: exit 3) after undoing what it had done itself.
 */
export async function prepareNode(
  spec: NodeSpec,
  nodeFile: string,
  log: LoggerPort,
  undo: StartUndo,
): Promise<PreparedNode> {
  const createdStateDir = prepareNodeDirectories(spec);
  if (createdStateDir !== undefined)
    undo.push(() => rmSync(createdStateDir, { recursive: true, force: true }));
  // One daemon per node: the state directory first, then the node cgroup (createNode, exclusive).
  let stateLock;
  try {
    stateLock = lockStateDir(spec.stateDir, {
      pid: process.pid,
      node: spec.name,
      nodeFile: resolve(nodeFile),
    });
  } catch (e) {
    await undo.run();
    throw e;
  }
  undo.push(() => stateLock.undo());
  const capabilities: string[] = [];
  let finalStatuses: FinalStatusJournal | undefined;
  let driver: CgroupDriver | undefined;
  let nodeCgroups: NodeCgroups | undefined;
  let reservation: JournalReservation;
  const detection = await detectOwnCgroups();
  const nodeName = `evictd-${spec.name.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 50)}`;
  try {
    // Space for the record of every pod that ends, reserved before any pod runs.
    reservation = openFinalStatusJournal(spec.stateDir);
    const finalStatusesFile = reservation.file;
    if (reservation.created) undo.push(() => rmSync(finalStatusesFile, { force: true }));
    finalStatuses = new FinalStatusJournal(reservation.share);
    const writer = finalStatuses;
    undo.push(() => writer.close());
    capabilities.push(
      `the end of every pod (eviction, rejection, completion) is recorded in ${reservation.file} before it takes effect, in space reserved at start, so a full state filesystem never lets an ended pod run again`,
    );
    if (reservation.copyOnWrite !== undefined)
      capabilities.push(
        `stateDir is on ${reservation.copyOnWrite}, which copies on write: the journal's reserved space does not guarantee its writes on a full filesystem (disable copy-on-write for the stateDir, e.g. chattr +C, or use another filesystem)`,
      );
    if (reservation.unreadable > 0)
      log.warn(
        { file: reservation.file, slots: reservation.unreadable },
        "final-status journal: records that do not read back (torn by a crash) are ignored",
      );

    const created = createCgroupDriver(detection);
    if (created.ok) {
      driver = created.driver;
      capabilities.push(...created.limitations);
      // A node left behind by a previous run is adopted: its pods' processes keep running.
      nodeCgroups = await driver.createNode({
        name: nodeName,
        adopt: true,
        exclusive: true,
        memoryLimitBytes: spec.capacity.memoryBytes,
        ...(spec.capacity.pids !== undefined ? { pidsMax: Number(spec.capacity.pids) } : {}),
        pods: {
          memoryLimitBytes: spec.podsMemoryLimitBytes,
          ...(spec.podsPidsLimit !== undefined ? { pidsMax: Number(spec.podsPidsLimit) } : {}),
        },
      });
      const nodeDriver = driver;
      // A node this start created holds nothing yet: it goes again; an adopted one stays as it was.
      undo.push(() => (nodeCgroups?.adopted === true ? nodeDriver.release() : nodeDriver.destroyNode()));
      capabilities.push(
        `cgroup ${driver.api}: node at ${driver.directories(nodeCgroups.node).memory ?? nodeName}`,
      );
    } else {
      capabilities.push(
        `no cgroups (${created.reason}): processes are measured through /proc, limits are not enforced, and memory is watched by polling`,
      );
    }
  } catch (e) {
    await undo.run();
    throw e;
  }
  return { capabilities, stateLock, reservation, finalStatuses, detection, driver, nodeCgroups };
}

/**
 * Gives back what the start took hold of, the node itself left as it is: its pods keep running for
 * the next daemon to adopt (unless the node was torn down first: tear-down-node.ts).
 */
export function releaseNode(node: PreparedNode): void {
  node.driver?.release();
  node.finalStatuses.close();
  node.stateLock.lock.release();
}
