/**
 * The pod the reaction benchmark evicts: a perl program that fills memory fast to just below the
 * eviction threshold, then grows at a fixed rate, 1 MiB at a time, until SIGTERM. It is its own
 * witness: after every MiB it checks the node cgroup's working set (usage − total_inactive_file,
 * the kubelet's formula) and notes when memory.available first went below the threshold, and its
 * SIGTERM handler notes when the signal arrived, both on the same wall clock (Time::HiRes, µs).
 * After SIGTERM it stops growing but keeps its memory for `lingerSeconds` before exiting, so the
 * daemon sees a dying pod still holding memory (the case where evicting another pod would be an
 * over-eviction).
 *
 * Every MiB is made resident at once, not merely reserved: with `touch: "populate"` one
 * mmap(MAP_POPULATE) per MiB has the kernel fault in and zero all 256 pages (charged to the pod's
 * memory cgroup like any anonymous memory), with `touch: "write"` perl writes every byte of a 1 MiB
 * string (a page fault per 4 KiB). Populate exists because on small virtual machines a trap per
 * page caps one thread at about 1.3 GiB/s, below the 2 GiB/s the benchmark asks for; the pod notes
 * the rate it actually achieved so a machine that cannot keep up shows in the results.
 *
 * Reading memory.stat costs more the more cgroups the node has (v1 sums the subtree), so the pod
 * reads memory.usage_in_bytes first and memory.stat only when usage alone cannot settle the
 * question (the working set is never above usage).
 *
 * The program must not contain two dollars in a row: container commands go through Kubernetes
 * variable expansion, which turns them into one (so the pid comes from POSIX::getpid).
 *
 * Its notes, one per line, appended to `outFile`:
 *   start <t> <pid>                                       the program runs (the bench waits on the pid)
 *   ramp <t> <workingSetBytes>                            prefill done, constant-rate growth starts
 *   cross <tChunkStart> <tChecked> <availableBytes> <n>   the n-th MiB of the ramp took available below the threshold
 *   term <t>                                              SIGTERM arrived
 *   stop <t> <n>                                          growth stopped after n MiB of ramp; lingering
 */

export type Touch = "populate" | "write";

export interface RampPodOptions {
  /** The node's memory cgroup directory (its usage file and memory.stat are read). */
  readonly nodeCgroupDir: string;
  /** v1 (default): memory.usage_in_bytes and total_inactive_file; v2: memory.current and inactive_file. */
  readonly api?: "v1" | "v2";
  readonly capacityBytes: number;
  readonly thresholdBytes: number;
  readonly mibPerSecond: number;
  /** Prefill stops this far below the threshold; the constant-rate ramp covers the rest. */
  readonly marginBytes: number;
  readonly lingerSeconds: number;
  readonly outFile: string;
  readonly touch: Touch;
}

/** mmap's syscall number where MAP_POPULATE is used; elsewhere the pod falls back to writing. */
const SYS_MMAP: Partial<Record<NodeJS.Architecture, number>> = { x64: 9, arm64: 222 };

// PROT_READ|PROT_WRITE = 3; MAP_PRIVATE|MAP_ANONYMOUS|MAP_POPULATE = 0x02|0x20|0x8000 (x86-64 and
// the generic Linux ABI arm64 uses alike).
const SCRIPT = String.raw`
use strict; use warnings; use POSIX (); use Time::HiRes qw(time sleep);
my ($cg, $cap, $thr, $rate, $margin, $linger, $out, $mmap, $usagefile, $inactivekey) = @ARGV;
open(my $fh, '>>', $out) or die "open $out: $!";
$fh->autoflush(1);
print $fh "start ", sprintf("%.6f", time()), " ", POSIX::getpid(), "\n";
sub usage {
  open(my $u, '<', "$cg/$usagefile") or return 0; my $v = <$u>; close $u; return $v + 0;
}
sub ws_from {
  my ($usage) = @_;
  open(my $s, '<', "$cg/memory.stat") or return $usage; my $inactive = 0;
  while (my $l = <$s>) { if ($l =~ /^$inactivekey (\d+)/) { $inactive = $1; last; } }
  close $s; my $w = $usage - $inactive; return $w < 0 ? 0 : $w;
}
sub ws { return ws_from(usage()); }
# The working set is usage minus inactive file pages: when usage is below a level, so is it.
sub ws_below { my ($level) = @_; my $u = usage(); return $u < $level || ws_from($u) < $level; }
my $termed = 0;
$SIG{TERM} = sub { print $fh "term ", sprintf("%.6f", time()), "\n" unless $termed; $termed = 1; };
my @held;
sub chunk {
  if ($mmap > 0) {
    my $p = syscall($mmap, 0, 1048576, 3, 0x8022, -1, 0);
    if ($p != -1) { push @held, $p; return; }
    $mmap = 0;
  }
  my $s = "a"; $s x= 1048576; push @held, \$s;
}
my $target = $cap - $thr - $margin;
while (!$termed && ws_below($target)) { chunk(); }
my $interval = 1 / $rate;
my $next = time();
print $fh "ramp ", sprintf("%.6f", $next), " ", ws(), "\n";
my $crossed = 0;
my $n = 0;
# A pod can never hold more than the node: past that, the bench is broken, not the daemon.
while (!$termed && @held * 1048576 < $cap) {
  my $t0 = time();
  chunk(); $n++;
  if (!$crossed) {
    my $u = usage();
    my $available = $u > $cap - $thr ? $cap - ws_from($u) : $thr;
    if ($available < $thr) { print $fh "cross ", sprintf("%.6f %.6f", $t0, time()), " $available $n\n"; $crossed = 1; }
  }
  $next += $interval;
  my $d = $next - time();
  if ($d > 0) { sleep($d) unless $termed; }
  # Behind by more than 5 ms (a stall): carry on from now rather than burst to catch up.
  elsif ($d < -0.005) { $next = time(); }
}
print $fh "stop ", sprintf("%.6f", time()), " $n\n";
sleep($linger);
exit 0;
`;

/** The container command (no shell: perl gets the program and its parameters as arguments). */
export function rampPodCommand(o: RampPodOptions): string[] {
  const mmap = o.touch === "populate" ? (SYS_MMAP[process.arch] ?? 0) : 0;
  return [
    "/usr/bin/perl",
    "-e",
    SCRIPT,
    o.nodeCgroupDir,
    String(o.capacityBytes),
    String(o.thresholdBytes),
    String(o.mibPerSecond),
    String(o.marginBytes),
    String(o.lingerSeconds),
    o.outFile,
    String(mmap),
    o.api === "v2" ? "memory.current" : "memory.usage_in_bytes",
    o.api === "v2" ? "inactive_file" : "total_inactive_file",
  ];
}

/** What a ramp pod noted; times in epoch milliseconds. */
export interface RampNotes {
  readonly pid?: number;
  readonly rampAt?: number;
  /** Start of the MiB whose allocation took available below the threshold. */
  readonly crossAt?: number;
  readonly crossCheckedAt?: number;
  /** MiB grown at the constant rate up to and including the one that crossed. */
  readonly crossMiB?: number;
  readonly termAt?: number;
  readonly stopAt?: number;
  /** MiB grown at the constant rate until SIGTERM stopped it. */
  readonly stopMiB?: number;
}

export function parseRampNotes(text: string): RampNotes {
  const notes: {
    pid?: number;
    rampAt?: number;
    crossAt?: number;
    crossCheckedAt?: number;
    crossMiB?: number;
    termAt?: number;
    stopAt?: number;
    stopMiB?: number;
  } = {};
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/);
    const t = Number(f[1]) * 1000;
    if (f[0] === "start" && /^[1-9]\d*$/.test(f[2] ?? "")) notes.pid ??= Number(f[2]);
    else if (f[0] === "ramp") notes.rampAt ??= t;
    else if (f[0] === "cross") {
      notes.crossAt ??= t;
      notes.crossCheckedAt ??= Number(f[2]) * 1000;
      notes.crossMiB ??= Number(f[4]);
    } else if (f[0] === "term") notes.termAt ??= t;
    else if (f[0] === "stop") {
      notes.stopAt ??= t;
      notes.stopMiB ??= Number(f[2]);
    }
  }
  return notes;
}

/**
 * The rate the ramp achieved from its start to the crossing (MiB/s), the part of the ramp the
 * reaction is measured on; undefined without a crossing.
 */
export function achievedMiBPerSecond(n: RampNotes): number | undefined {
  if (n.rampAt === undefined || n.crossCheckedAt === undefined || n.crossMiB === undefined) return undefined;
  const seconds = (n.crossCheckedAt - n.rampAt) / 1000;
  return seconds > 0 ? n.crossMiB / seconds : undefined;
}
