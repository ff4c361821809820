// Parsing the kubelet's eviction flags (pflag semantics) with every problem collected.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IssueList } from "../issues.js";
import { parseEvictionFlags, settingName } from "./eviction-flags.js";
import type { EvictionSettingsLayer, SettingMap } from "./setting-types.js";

function parse(args: string[]): { layer: EvictionSettingsLayer; issues: IssueList } {
  const issues = new IssueList();
  return { layer: parseEvictionFlags(args, "flags", issues), issues };
}

function entries(m: SettingMap | undefined): [string, string, string][] | undefined {
  return m?.entries.map((e) => [e.key, e.value, e.path]);
}

function errors(issues: IssueList): [string, string][] {
  return issues.items.map((i) => [i.path, i.message]);
}

describe("map flags", () => {
  test("--flag=value and --flag value forms", () => {
    const { layer, issues } = parse([
      "--eviction-hard=memory.available<1Gi",
      "--eviction-soft",
      "memory.available<2Gi",
      "--eviction-soft-grace-period",
      "memory.available=1m30s",
      "--eviction-minimum-reclaim=memory.available=500Mi,nodefs.available=5%",
    ]);
    assert.deepEqual(errors(issues), []);
    assert.deepEqual(entries(layer.evictionHard), [
      ["memory.available", "1Gi", 'flags[0]["memory.available"]'],
    ]);
    assert.deepEqual(entries(layer.evictionSoft), [
      ["memory.available", "2Gi", 'flags[1]["memory.available"]'],
    ]);
    assert.deepEqual(entries(layer.evictionSoftGracePeriod), [
      ["memory.available", "1m30s", 'flags[3]["memory.available"]'],
    ]);
    assert.deepEqual(entries(layer.evictionMinimumReclaim), [
      ["memory.available", "500Mi", 'flags[5]["memory.available"]'],
      ["nodefs.available", "5%", 'flags[5]["nodefs.available"]'],
    ]);
    assert.equal(layer.evictionHard?.path, "flags[0]");
  });

  test("repeats accumulate; a later duplicate key overwrites and carries its own path", () => {
    const { layer } = parse([
      "--eviction-hard=memory.available<1Gi,nodefs.available<10%",
      "--eviction-hard=imagefs.available<15%,memory.available<2Gi",
    ]);
    assert.deepEqual(entries(layer.evictionHard), [
      ["memory.available", "2Gi", 'flags[1]["memory.available"]'],
      ["nodefs.available", "10%", 'flags[0]["nodefs.available"]'],
      ["imagefs.available", "15%", 'flags[1]["imagefs.available"]'],
    ]);
  });

  test("an empty value sets an empty map (it still replaces the config file's map)", () => {
    const { layer, issues } = parse(["--eviction-hard="]);
    assert.deepEqual(errors(issues), []);
    assert.deepEqual(entries(layer.evictionHard), []);
  });

  test("malformed pairs: upstream message wrapped by pflag, valid pairs still read", () => {
    const { layer, issues } = parse([
      "--eviction-hard=memory.available=1Gi,nodefs.available<10%",
      "--eviction-soft-grace-period=memory.available<30s",
    ]);
    assert.deepEqual(errors(issues), [
      [
        "flags[0]",
        'invalid argument "memory.available=1Gi,nodefs.available<10%" for "--eviction-hard" flag: malformed pair, expect string<string',
      ],
      [
        "flags[1]",
        'invalid argument "memory.available<30s" for "--eviction-soft-grace-period" flag: malformed pair, expect string=string',
      ],
    ]);
    assert.deepEqual(entries(layer.evictionHard), [
      ["nodefs.available", "10%", 'flags[0]["nodefs.available"]'],
    ]);
  });

  test("keys and values are trimmed (unlike config-file keys)", () => {
    const { layer } = parse(["--eviction-hard", " memory.available < 1Gi "]);
    assert.deepEqual(entries(layer.evictionHard), [
      ["memory.available", "1Gi", 'flags[0]["memory.available"]'],
    ]);
  });
});

describe("scalar flags", () => {
  test("int32, duration, bools and the list", () => {
    const { layer, issues } = parse([
      "--eviction-max-pod-grace-period=0x3c",
      "--eviction-pressure-transition-period",
      "1m30s",
      "--kernel-memcg-notification",
      "--local-storage-capacity-isolation=false",
      "--enforce-node-allocatable=pods,kube-reserved",
      "--enforce-node-allocatable=system-reserved",
    ]);
    assert.deepEqual(errors(issues), []);
    assert.deepEqual(layer.evictionMaxPodGracePeriod, { value: 60, path: "flags[0]" });
    assert.deepEqual(layer.evictionPressureTransitionPeriod, { value: 90_000_000_000n, path: "flags[1]" });
    assert.deepEqual(layer.kernelMemcgNotification, { value: true, path: "flags[3]" });
    assert.deepEqual(layer.localStorageCapacityIsolation, { value: false, path: "flags[4]" });
    assert.deepEqual(
      layer.enforceNodeAllocatable?.items.map((i) => [i.value, i.path]),
      [
        ["pods", "flags[5]"],
        ["kube-reserved", "flags[5]"],
        ["system-reserved", "flags[6]"],
      ],
    );
  });

  test("the last occurrence of a scalar flag wins", () => {
    const { layer } = parse(["--eviction-max-pod-grace-period=30", "--eviction-max-pod-grace-period", "-1"]);
    assert.deepEqual(layer.evictionMaxPodGracePeriod, { value: -1, path: "flags[1]" });
  });

  test("an empty --enforce-node-allocatable is the empty list", () => {
    const { layer } = parse(["--enforce-node-allocatable="]);
    assert.deepEqual(layer.enforceNodeAllocatable?.items, []);
  });

  test("underscores are normalised to dashes", () => {
    const { layer, issues } = parse([
      "--eviction_max_pod_grace_period=5",
      "--eviction_hard=memory.available<1Gi",
    ]);
    assert.deepEqual(errors(issues), []);
    assert.equal(layer.evictionMaxPodGracePeriod?.value, 5);
    assert.equal(layer.evictionHard?.entries.length, 1);
  });

  test("bad values: pflag's wrapping around Go's parse errors", () => {
    const { issues } = parse([
      "--eviction-max-pod-grace-period=60s",
      "--eviction-max-pod-grace-period=3000000000",
      "--eviction-pressure-transition-period=30",
      "--eviction-pressure-transition-period=5x",
      "--kernel-memcg-notification=yes",
      '--enforce-node-allocatable=a"b',
    ]);
    assert.deepEqual(errors(issues), [
      [
        "flags[0]",
        'invalid argument "60s" for "--eviction-max-pod-grace-period" flag: strconv.ParseInt: parsing "60s": invalid syntax',
      ],
      [
        "flags[1]",
        'invalid argument "3000000000" for "--eviction-max-pod-grace-period" flag: strconv.ParseInt: parsing "3000000000": value out of range',
      ],
      [
        "flags[2]",
        'invalid argument "30" for "--eviction-pressure-transition-period" flag: time: missing unit in duration "30"',
      ],
      [
        "flags[3]",
        'invalid argument "5x" for "--eviction-pressure-transition-period" flag: time: unknown unit "x" in duration "5x"',
      ],
      [
        "flags[4]",
        'invalid argument "yes" for "--kernel-memcg-notification" flag: strconv.ParseBool: parsing "yes": invalid syntax',
      ],
      [
        "flags[5]",
        'invalid argument "a\\"b" for "--enforce-node-allocatable" flag: parse error on line 1, column 2: bare " in non-quoted-field',
      ],
    ]);
  });
});

describe("argument errors", () => {
  test("unknown flags name the flag and say only eviction flags are read", () => {
    const { issues } = parse([
      "--node-ip",
      "10.0.0.1",
      "--config=/etc/kubelet.yaml",
      "--eviction-hard=memory.available<1Gi",
    ]);
    assert.equal(issues.items.length, 2, "the unknown flag's value is not a second issue");
    const [first, second] = issues.items;
    assert.equal(first?.path, "flags[0]");
    assert.match(
      first?.message ?? "",
      /^unknown flag: --node-ip \(evictd reads only the kubelet's eviction flags: --eviction-hard, /u,
    );
    assert.equal(second?.path, "flags[2]");
    assert.match(second?.message ?? "", /^unknown flag: --config /u);
    assert.equal(first?.code, "unknown-flag");
  });

  test("names of Object.prototype members are unknown flags too", () => {
    const { issues } = parse(["--constructor=1", "--toString", "--hasOwnProperty=x"]);
    assert.deepEqual(
      issues.items.map((i) => [i.path, i.code]),
      [
        ["flags[0]", "unknown-flag"],
        ["flags[1]", "unknown-flag"],
        ["flags[2]", "unknown-flag"],
      ],
    );
  });

  test("a bool flag never takes the next word, so `--kernel-memcg-notification false` leaves a stray argument", () => {
    const { layer, issues } = parse(["--kernel-memcg-notification", "false"]);
    assert.deepEqual(layer.kernelMemcgNotification, { value: true, path: "flags[0]" });
    assert.equal(issues.items.length, 1);
    assert.equal(issues.items[0]?.path, "flags[1]");
    assert.match(issues.items[0]?.message ?? "", /^unexpected argument "false"/u);
  });

  test("a value-taking flag at the end needs an argument", () => {
    const { issues } = parse(["--eviction-hard"]);
    assert.deepEqual(errors(issues), [["flags[0]", "flag needs an argument: --eviction-hard"]]);
  });

  test("the value word is taken even when it starts with a dash", () => {
    const { layer, issues } = parse(["--eviction-max-pod-grace-period", "-5"]);
    assert.deepEqual(errors(issues), []);
    assert.equal(layer.evictionMaxPodGracePeriod?.value, -5);
  });

  test("positional words, shorthands, `--` and bad syntax are all reported", () => {
    const { issues } = parse(["memory.available<1Gi", "-v", "---x", "--", "--eviction-hard=a<1"]);
    assert.deepEqual(
      issues.items.map((i) => [i.path, i.code]),
      [
        ["flags[0]", "unexpected-argument"],
        ["flags[1]", "unknown-flag"],
        ["flags[2]", "bad-flag-syntax"],
        ["flags[4]", "unexpected-argument"],
      ],
    );
  });
});

test("settingName names flags for flag-provided settings", () => {
  assert.equal(settingName("evictionHard", true), "--eviction-hard");
  assert.equal(
    settingName("evictionPressureTransitionPeriod", true),
    "--eviction-pressure-transition-period",
  );
  assert.equal(settingName("evictionHard", false), "evictionHard");
  assert.equal(settingName("mergeDefaultEvictionSettings", true), "mergeDefaultEvictionSettings");
});
