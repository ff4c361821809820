/** Succeeded and Failed pods are done: the kubelet neither ranks, evicts nor counts them as active. */
export function isTerminalPhase(phase: string | undefined): boolean {
  return phase === "Succeeded" || phase === "Failed";
}
