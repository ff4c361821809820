/** libc through koffi: eventfd, read, write, close, poll and fcntl on raw file descriptors, errno mapped to AdapterError. */
import koffi from "koffi";
import { AdapterError } from "../../errors.js";

// Linux values, identical on x86_64 and arm64 (asm-generic).
/** `EFD_CLOEXEC`: the eventfd is not inherited by spawned processes. */
export const EFD_CLOEXEC = 0o2000000;
/** `EFD_NONBLOCK`: read(2) on an empty counter fails with EAGAIN instead of blocking. */
export const EFD_NONBLOCK = 0o4000;
/** poll(2) event bits. */
export const POLL = { in: 0x1, pri: 0x2, out: 0x4, err: 0x8, hup: 0x10, nval: 0x20 } as const;
/** The errno values the poll loop must tell apart. */
export const ERRNO = { EINTR: 4, EAGAIN: 11 } as const;

/**
 * C declarations of the calls used, shared with the fd poller so both bind the same signatures.
 * Buffers go to `void *` so koffi passes their memory by reference and the kernel writes results
 * (revents, counters) straight into them.
 */
export const LIBC_PROTOTYPES = {
  eventfd: "int eventfd(unsigned int initval, int flags)",
  read: "long read(int fd, void *buf, unsigned long count)",
  write: "long write(int fd, const void *buf, unsigned long count)",
  close: "int close(int fd)",
  poll: "int poll(void *fds, unsigned long nfds, int timeout)",
  strerror: "const char *strerror(int errnum)",
  fcntl: "int fcntl(int fd, int cmd, ...)",
} as const;

/** `F_DUPFD_CLOEXEC` (asm-generic fcntl.h): a duplicate that spawned processes do not inherit. */
const F_DUPFD_CLOEXEC = 1030;

/** The typed subset of libc this module binds. */
interface Libc {
  eventfd(initval: number, flags: number): number;
  read(fd: number, buf: Uint8Array, count: number): number;
  write(fd: number, buf: Uint8Array, count: number): number;
  close(fd: number): number;
  poll(fds: Uint8Array, nfds: number, timeoutMs: number): number;
  strerror(errnum: number): string;
  /** Variadic: each extra argument is passed as a koffi type name and a value. */
  fcntl(fd: number, cmd: number, ...typedArgs: unknown[]): number;
}

let bound: Libc | undefined;

/** Binds libc on first use, so importing this module on a machine without glibc costs nothing. */
function libc(): Libc {
  if (bound !== undefined) return bound;
  try {
    const lib = koffi.load("libc.so.6");
    bound = {
      eventfd: lib.func(LIBC_PROTOTYPES.eventfd) as Libc["eventfd"],
      read: lib.func(LIBC_PROTOTYPES.read) as Libc["read"],
      write: lib.func(LIBC_PROTOTYPES.write) as Libc["write"],
      close: lib.func(LIBC_PROTOTYPES.close) as Libc["close"],
      poll: lib.func(LIBC_PROTOTYPES.poll) as Libc["poll"],
      strerror: lib.func(LIBC_PROTOTYPES.strerror) as Libc["strerror"],
      fcntl: lib.func(LIBC_PROTOTYPES.fcntl) as Libc["fcntl"],
    };
    return bound;
  } catch (cause) {
    throw new AdapterError("ffi-unavailable", "cannot bind libc.so.6 through koffi", {
      cause,
      hint: "kernel notifications need Linux with glibc; the loop still runs on its periodic tick",
    });
  }
}

/** The symbolic name of an errno value (`EINVAL`), or `errno <n>` if koffi does not know it. */
export function errnoName(errno: number): string {
  for (const [name, value] of Object.entries(koffi.os.errno)) if (value === errno) return name;
  return `errno ${errno}`;
}

/**
 * A Node-style system error (`code`, `errno`, `syscall`), so callers can use the same
 * `errnoCode(error.cause)` on failures from koffi and from `node:fs`.
 */
export function syscallError(
  syscall: string,
  errno: number,
): Error & { code: string; errno: number; syscall: string } {
  const code = errnoName(errno);
  const error = new Error(`${syscall}: ${code} (${libc().strerror(errno)})`) as Error & {
    code: string;
    errno: number;
    syscall: string;
  };
  error.code = code;
  error.errno = errno;
  error.syscall = syscall;
  return error;
}

function fail(syscall: string, what: string): never {
  const cause = syscallError(syscall, koffi.errno());
  throw new AdapterError("syscall-failed", `${what}: ${cause.message}`, { cause });
}

/** Creates a non-blocking, close-on-exec eventfd with a zero counter and returns its descriptor. */
export function createEventfd(): number {
  const fd = libc().eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) fail("eventfd", "cannot create an eventfd");
  return fd;
}

/** Adds `value` to an eventfd's counter, waking whoever polls it. */
export function signalEventfd(fd: number, value = 1n): void {
  const buf = Buffer.alloc(8);
  buf.writeBigUInt64LE(value);
  if (libc().write(fd, buf, 8) !== 8) fail("write", `cannot signal eventfd ${fd}`);
}

/** Reads and resets an eventfd's counter; 0n if it was already zero (EAGAIN, the fd is non-blocking). */
export function drainEventfd(fd: number): bigint {
  const buf = Buffer.alloc(8);
  const n = libc().read(fd, buf, 8);
  if (n === 8) return buf.readBigUInt64LE();
  if (n < 0 && koffi.errno() === ERRNO.EAGAIN) return 0n;
  return fail("read", `cannot read eventfd ${fd}`);
}

/** A close-on-exec duplicate of `fd`: the same open file, under a descriptor of its own. */
export function duplicateFd(fd: number): number {
  const copy = libc().fcntl(fd, F_DUPFD_CLOEXEC, "int", 0);
  if (copy < 0) fail("fcntl", `cannot duplicate fd ${fd}`);
  return copy;
}

/** Closes a raw descriptor obtained from this module. */
export function closeFd(fd: number): void {
  if (libc().close(fd) !== 0) fail("close", `cannot close fd ${fd}`);
}

/** One entry of a poll(2) set. */
export interface PollRequest {
  readonly fd: number;
  /** Bits of {@link POLL} to wait for; error bits are always reported. */
  readonly events: number;
}

/**
 * Polls `requests` for at most `timeoutMs` (0: just look; never pass -1 on the main thread, it
 * would block the event loop) and returns each entry's revents, in order.
 */
export function pollOnce(requests: readonly PollRequest[], timeoutMs: number): number[] {
  const set = Buffer.alloc(8 * requests.length);
  requests.forEach((r, i) => {
    set.writeInt32LE(r.fd, 8 * i);
    set.writeInt16LE(r.events, 8 * i + 4);
  });
  if (libc().poll(set, requests.length, timeoutMs) < 0) fail("poll", "poll(2) failed");
  return requests.map((_, i) => set.readUInt16LE(8 * i + 6));
}
