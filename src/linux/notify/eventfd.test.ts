/** Tests of the libc bindings: eventfd counter semantics, poll, and errno mapped to AdapterError. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { errnoCode, AdapterError } from "../../errors.js";
import { closeFd, createEventfd, drainEventfd, errnoName, pollOnce, POLL, signalEventfd } from "./eventfd.js";
import { openFdCount } from "./testing/notify-test-support.js";

describe("eventfd bindings", () => {
  test("signals add up, a drain returns the sum and resets, an empty drain is 0n", () => {
    const fds = openFdCount();
    const fd = createEventfd();
    try {
      assert.equal(openFdCount(), fds + 1);
      assert.equal(drainEventfd(fd), 0n);
      signalEventfd(fd);
      signalEventfd(fd, 41n);
      assert.equal(drainEventfd(fd), 42n);
      assert.equal(drainEventfd(fd), 0n);
    } finally {
      closeFd(fd);
    }
    assert.equal(openFdCount(), fds);
  });

  test("poll sees POLLIN only while the counter is non-zero", () => {
    const fd = createEventfd();
    try {
      assert.deepEqual(pollOnce([{ fd, events: POLL.in }], 0), [0]);
      signalEventfd(fd);
      assert.deepEqual(pollOnce([{ fd, events: POLL.in }], 0), [POLL.in]);
      drainEventfd(fd);
      assert.deepEqual(pollOnce([{ fd, events: POLL.in }], 0), [0]);
    } finally {
      closeFd(fd);
    }
  });

  test("poll reports POLLNVAL for a descriptor that is not open", () => {
    assert.deepEqual(pollOnce([{ fd: 1_000_000, events: POLL.in }], 0), [POLL.nval]);
  });

  test("a failing syscall becomes an AdapterError whose cause carries the errno like a Node system error", () => {
    const fd = createEventfd();
    closeFd(fd);
    assert.throws(
      () => closeFd(fd),
      (e: unknown) =>
        e instanceof AdapterError &&
        e.code === "syscall-failed" &&
        errnoCode(e.cause) === "EBADF" &&
        /close: EBADF \(Bad file descriptor\)/.test(e.message),
    );
  });

  test("errno names", () => {
    assert.equal(errnoName(22), "EINVAL");
    assert.equal(errnoName(11), "EAGAIN");
    assert.equal(errnoName(99999), "errno 99999");
  });
});
