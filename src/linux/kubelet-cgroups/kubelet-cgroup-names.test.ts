/** The kubelet's cgroup names for both drivers, against paths as real nodes show them. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  containerIdOfDir,
  kubepodsPath,
  podCgroupPath,
  podUidOfDir,
  qosTierPaths,
} from "./kubelet-cgroup-names.js";

const UID = "5b2f7e8e-6d0a-4a59-9c3b-0e1b8f0a7c11";
const ID = "3f1c6a0b9d2e4f5a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a";

describe("kubelet cgroup names", () => {
  test("cgroupfs driver: kubepods, its QoS tiers and pod<uid> below the cgroupRoot", () => {
    assert.equal(kubepodsPath("cgroupfs", "/"), "kubepods");
    assert.deepEqual(qosTierPaths("cgroupfs", "/"), ["kubepods/burstable", "kubepods/besteffort"]);
    assert.equal(podCgroupPath("cgroupfs", "/", UID), `kubepods/pod${UID}`);
    assert.equal(podCgroupPath("cgroupfs", "/", UID, "burstable"), `kubepods/burstable/pod${UID}`);
    assert.equal(
      podCgroupPath("cgroupfs", "/custom/root/", UID, "besteffort"),
      `custom/root/kubepods/besteffort/pod${UID}`,
    );
  });

  test("systemd driver: each segment a slice named after its ancestors, dashes in names escaped", () => {
    assert.equal(kubepodsPath("systemd", "/"), "kubepods.slice");
    assert.deepEqual(qosTierPaths("systemd", "/"), [
      "kubepods.slice/kubepods-burstable.slice",
      "kubepods.slice/kubepods-besteffort.slice",
    ]);
    const escaped = UID.replaceAll("-", "_");
    assert.equal(podCgroupPath("systemd", "/", UID), `kubepods.slice/kubepods-pod${escaped}.slice`);
    assert.equal(
      podCgroupPath("systemd", "", UID, "burstable"),
      `kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${escaped}.slice`,
    );
    assert.equal(kubepodsPath("systemd", "/my-root"), "my_root.slice/my_root-kubepods.slice");
  });

  test("a pod cgroup's directory name gives its UID back, with dashes, for either driver", () => {
    assert.equal(podUidOfDir(`pod${UID}`), UID);
    assert.equal(podUidOfDir(`kubepods-pod${UID.replaceAll("-", "_")}.slice`), UID);
    assert.equal(podUidOfDir(`kubepods-burstable-pod${UID.replaceAll("-", "_")}.slice`), UID);
    for (const other of [
      "burstable",
      "kubepods-besteffort.slice",
      ID,
      `cri-containerd-${ID}.scope`,
      "podnot-a-uid",
    ])
      assert.equal(podUidOfDir(other), undefined, other);
  });

  test("a static pod's cgroup, named after its config hash (the kubelet's UID of it), for either driver", () => {
    // kube-controller-manager's hash on a real 1.35 node (test/fixtures/real-data/summary-1.json).
    const HASH = "e9afcd8d3c942968802548f9a24d942a";
    assert.equal(podUidOfDir(`pod${HASH}`), HASH);
    assert.equal(podUidOfDir(`kubepods-pod${HASH}.slice`), HASH);
    assert.equal(podUidOfDir(`kubepods-besteffort-pod${HASH}.slice`), HASH);
    assert.equal(
      podCgroupPath("systemd", "/", HASH, "besteffort").split("/").pop(),
      `kubepods-besteffort-pod${HASH}.slice`,
    );
    for (const other of [`pod${HASH.slice(1)}`, `pod${HASH}0`, `pod${HASH.slice(1)}g`])
      assert.equal(podUidOfDir(other), undefined, other);
  });

  test("a container cgroup's directory name gives its id: cgroupfs (the id), containerd, CRI-O and docker scopes", () => {
    assert.equal(containerIdOfDir(ID), ID);
    assert.equal(containerIdOfDir(`cri-containerd-${ID}.scope`), ID);
    assert.equal(containerIdOfDir(`crio-${ID}.scope`), ID);
    assert.equal(containerIdOfDir(`docker-${ID}.scope`), ID);
    // CRI-O's monitor process has its own scope: not a container.
    assert.equal(containerIdOfDir(`crio-conmon-${ID}.scope`), undefined);
    assert.equal(containerIdOfDir(`pod${UID}`), undefined);
  });
});
