/**
 * The node-memory views as /status, `explain` and the live page show them beside `memory.available`:
 * quantities as the signal's own figures are written (BinarySI), each with the formula it comes
 * from, under a note that says they are evictd's additions. The signal, its thresholds and every
 * decision stay the kubelet's formula alone.
 */
import type { NodeMemoryViewsReading } from "../../core/memory/node-memory-views.js";
import { formatQuantity, quantityFromInt } from "../../core/quantity.js";
import { formatRfc3339Ms } from "../../core/time/rfc3339.js";

/** What every rendering of the views says first. */
export const EVICTD_ADDITIONS_NOTE =
  "evictd's additions beside the kubelet's memory.available, never used for decisions";

export interface NodeMemoryViewsView {
  readonly note: string;
  /** When the files were read (the signal's own figure has its own time). */
  readonly time: string;
  /** The files read. */
  readonly source: string;
  readonly capacity: string;
  /** The kubelet's formula on this same read: the signal's, recomputed, to compare the others with. */
  readonly kubelet: { readonly available: string; readonly workingSet: string; readonly formula: string };
  /** The kernel's estimate, machine-wide; absent on kernels that do not write it. */
  readonly kernelAvailable?: { readonly available: string; readonly formula: string };
  /** The kubelet's working set with kernel memory in it; absent when nothing says what kernel memory is. */
  readonly withKernelMemory?: {
    readonly available: string;
    readonly workingSet: string;
    readonly kernelMemory: string;
    readonly formula: string;
    /** The kubelet's usage counts kernel memory already (a cgroup of its own): the same figure as `kubelet`. */
    readonly alreadyInKubeletFigure: boolean;
  };
}

const bytes = (n: bigint): string => formatQuantity(quantityFromInt(n, "BinarySI"));

export function nodeMemoryViewsView(reading: NodeMemoryViewsReading): NodeMemoryViewsView {
  const { views } = reading;
  const { kubelet, kernelAvailable, withKernelMemory: kernel } = views;
  return {
    note: EVICTD_ADDITIONS_NOTE,
    time: formatRfc3339Ms(reading.at),
    source: reading.source,
    capacity: bytes(views.capacityBytes),
    kubelet: {
      available: bytes(kubelet.availableBytes),
      workingSet: bytes(kubelet.workingSetBytes),
      formula: `capacity − (${kubelet.usageFrom} − inactive_file)`,
    },
    ...(kernelAvailable !== undefined
      ? {
          kernelAvailable: {
            available: bytes(kernelAvailable.availableBytes),
            formula: "MemAvailable of /proc/meminfo (machine-wide)",
          },
        }
      : {}),
    ...(kernel !== undefined
      ? {
          withKernelMemory: {
            available: bytes(kernel.availableBytes),
            workingSet: bytes(kernel.workingSetBytes),
            kernelMemory: bytes(kernel.kernelMemoryBytes),
            formula: kernel.alreadyInKubeletFigure
              ? `the kubelet's figure: ${kubelet.usageFrom} already counts kernel memory (${kernel.kernelMemoryFrom})`
              : `capacity − (${kubelet.usageFrom} − inactive_file + ${kernel.kernelMemoryFrom})`,
            alreadyInKubeletFigure: kernel.alreadyInKubeletFigure,
          },
        }
      : {}),
  };
}
