/**
 * The pod the reaction benchmark evicts: a perl program that fills memory fast to just below the
 * eviction threshold, then grows at a fixed rate, 1 MiB at a time, until SIGTERM. It is its own
 * witness: after every MiB it reads the node cgroup's working set (usage − total_inactive_file,
 * the kubelet's formula) and notes when memory.available first went below the threshold, and its
 * SIGTERM handler notes when the signal arrived, both on the same wall clock (Time::HiRes, µs).
 * After SIGTERM it stops growing but keeps its memory for `lingerSeconds` before exiting, so the
 * daemon sees a dying pod still holding memory (the case where evicting another pod would be an
 * over-eviction).
 *
 * Its notes, one per line, appended to `outFile`:
 *   ramp <t> <workingSetBytes>                       prefill done, constant-rate growth starts
 *   cross <tChunkStart> <tChecked> <availableBytes>  the first MiB after which available < threshold
 *   term <t>                                         SIGTERM arrived
 */

export interface RampPodOptions {
  /** The node's memory cgroup directory (v1: memory.usage_in_bytes and memory.stat are read). */
  readonly nodeCgroupDir: string;
  readonly capacityBytes: number;
  readonly thresholdBytes: number;
  readonly mibPerSecond: number;
  /** Prefill stops this far below the threshold; the constant-rate ramp covers the rest. */
  readonly marginBytes: number;
  readonly lingerSeconds: number;
  readonly outFile: string;
}

const SCRIPT = String.raw`
use strict; use warnings; use Time::HiRes qw(time sleep);
my ($cg, $cap, $thr, $rate, $margin, $linger, $out) = @ARGV;
open(my $fh, '>>', $out) or die "open $out: $!";
$fh->autoflush(1);
sub ws {
  open(my $u, '<', "$cg/memory.usage_in_bytes") or return 0; my $usage = <$u>; close $u;
  open(my $s, '<', "$cg/memory.stat") or return $usage; my $inactive = 0;
  while (my $l = <$s>) { if ($l =~ /^total_inactive_file (\d+)/) { $inactive = $1; last; } }
  close $s; my $w = $usage - $inactive; return $w < 0 ? 0 : $w;
}
my $termed = 0;
$SIG{TERM} = sub { print $fh "term ", sprintf("%.6f", time()), "\n" unless $termed; $termed = 1; };
my @held;
my $target = $cap - $thr - $margin;
while (!$termed && ws() < $target) { push @held, "a" x 1048576; }
print $fh "ramp ", sprintf("%.6f", time()), " ", ws(), "\n";
my $interval = 1 / $rate;
my $next = time();
my $crossed = 0;
while (!$termed) {
  my $t0 = time();
  push @held, "a" x 1048576;
  if (!$crossed) {
    my $available = $cap - ws();
    if ($available < $thr) { print $fh "cross ", sprintf("%.6f %.6f", $t0, time()), " $available\n"; $crossed = 1; }
  }
  $next += $interval;
  my $d = $next - time();
  sleep($d) if $d > 0 && !$termed;
}
sleep($linger);
exit 0;
`;

/** The container command (no shell: perl gets the program and its parameters as arguments). */
export function rampPodCommand(o: RampPodOptions): string[] {
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
  ];
}

/** What a ramp pod noted, in epoch milliseconds. */
export interface RampNotes {
  readonly rampAt?: number;
  /** Start of the MiB whose allocation took available below the threshold. */
  readonly crossAt?: number;
  readonly crossCheckedAt?: number;
  readonly termAt?: number;
}

export function parseRampNotes(text: string): RampNotes {
  const notes: { rampAt?: number; crossAt?: number; crossCheckedAt?: number; termAt?: number } = {};
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/);
    const t = Number(f[1]) * 1000;
    if (f[0] === "ramp") notes.rampAt ??= t;
    else if (f[0] === "cross") {
      notes.crossAt ??= t;
      notes.crossCheckedAt ??= Number(f[2]) * 1000;
    } else if (f[0] === "term") notes.termAt ??= t;
  }
  return notes;
}
