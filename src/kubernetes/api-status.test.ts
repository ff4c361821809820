import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  disruptionBudgetCauses,
  isMultipleBudgetsRefusal,
  isUidMismatch,
  parseApiStatus,
  responseMessage,
  statusLine,
} from "./api-status.js";

function status(fields: Record<string, unknown>): string {
  return JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", ...fields });
}

describe("parseApiStatus", () => {
  test("reads message, reason, code, causes and retryAfterSeconds", () => {
    const parsed = parseApiStatus(
      status({
        message: "Cannot evict pod as it would violate the pod's disruption budget.",
        reason: "TooManyRequests",
        code: 429,
        details: {
          retryAfterSeconds: 10,
          causes: [
            {
              reason: "DisruptionBudget",
              message: "The disruption budget web is still being processed by the server.",
            },
          ],
        },
      }),
    );
    assert.deepEqual(parsed, {
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      reason: "TooManyRequests",
      code: 429,
      retryAfterSeconds: 10,
      causes: [
        {
          type: "DisruptionBudget",
          message: "The disruption budget web is still being processed by the server.",
          field: undefined,
        },
      ],
    });
  });

  test("anything that is not a Status gives undefined", () => {
    assert.equal(
      parseApiStatus("Forbidden (user=x, verb=get, resource=nodes, subresource=stats)\n"),
      undefined,
    );
    assert.equal(parseApiStatus('{"kind":"Pod"}'), undefined);
    assert.equal(parseApiStatus("<html>bad gateway</html>"), undefined);
  });
});

describe("responseMessage", () => {
  test("the Status message first, else the kubelet's text line, else nothing", () => {
    assert.equal(
      responseMessage(parseApiStatus(status({ message: 'nodes "n1" not found' })), ""),
      'nodes "n1" not found',
    );
    assert.equal(responseMessage(undefined, "Unauthorized\n"), "Unauthorized");
    assert.equal(responseMessage(undefined, "<html><body>502</body></html>"), "");
    assert.equal(responseMessage(undefined, '{"unexpected":true}'), "");
    assert.equal(responseMessage(undefined, ""), "");
  });

  test("statusLine adds the standard phrase", () => {
    assert.equal(statusLine(403), "403 Forbidden");
    assert.equal(statusLine(429), "429 Too Many Requests");
    assert.equal(statusLine(599), "599");
  });
});

describe("isUidMismatch", () => {
  const cases: { name: string; code: number; body: string; want: boolean }[] = [
    {
      name: "DELETE early check (rest.BeforeDelete)",
      code: 409,
      body: status({
        reason: "Conflict",
        code: 409,
        message:
          'Operation cannot be fulfilled on Pod "web-0": the UID in the precondition (a1) does not match the UID in record (b2). The object might have been deleted and then recreated',
      }),
      want: true,
    },
    {
      name: "storage precondition",
      code: 409,
      body: status({
        reason: "Conflict",
        code: 409,
        message:
          'Operation cannot be fulfilled on pods "web-0": StorageError: invalid object, Code: 4, Key: /registry/pods/default/web-0, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: a1, UID in object meta: b2',
      }),
      want: true,
    },
    {
      name: "status patch naming another uid",
      code: 422,
      body: status({
        reason: "Invalid",
        code: 422,
        message: 'Pod "web-0" is invalid: metadata.uid: Invalid value: "a1": field is immutable',
        details: { causes: [{ reason: "FieldValueInvalid", field: "metadata.uid" }] },
      }),
      want: true,
    },
    {
      name: "an ordinary conflict is retried, not gone",
      code: 409,
      body: status({
        reason: "Conflict",
        code: 409,
        message: 'Operation cannot be fulfilled on pods "web-0": the object has been modified',
      }),
      want: false,
    },
    {
      name: "another invalid field",
      code: 422,
      body: status({ reason: "Invalid", code: 422, message: 'Pod "web-0" is invalid: status.phase' }),
      want: false,
    },
    {
      name: "not a conflict at all",
      code: 404,
      body: status({ message: "Precondition failed: UID in precondition: a" }),
      want: false,
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.equal(isUidMismatch(c.code, parseApiStatus(c.body), c.body), c.want);
    });
  }
});

test("disruptionBudgetCauses keeps only DisruptionBudget causes", () => {
  const parsed = parseApiStatus(
    status({
      code: 429,
      details: {
        causes: [
          {
            reason: "DisruptionBudget",
            message: "The disruption budget web needs 2 healthy pods and has 2 currently",
          },
          { reason: "Other", message: "ignored" },
        ],
      },
    }),
  );
  assert.deepEqual(disruptionBudgetCauses(parsed), [
    "The disruption budget web needs 2 healthy pods and has 2 currently",
  ]);
  assert.deepEqual(disruptionBudgetCauses(undefined), []);
});

test("isMultipleBudgetsRefusal: the eviction subresource's 500 for a pod two budgets select, and nothing else", () => {
  const twoBudgets = parseApiStatus(
    status({
      message:
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
      code: 500,
    }),
  );
  assert.equal(isMultipleBudgetsRefusal(twoBudgets), true);
  assert.equal(
    isMultipleBudgetsRefusal(parseApiStatus(status({ message: "Internal error occurred: etcd", code: 500 }))),
    false,
  );
  assert.equal(isMultipleBudgetsRefusal(undefined), false);
});
