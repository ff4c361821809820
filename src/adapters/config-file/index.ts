/** Reading kubelet configuration files and pointing issues back into them. */
export { loadKubeletConfigFile, parseKubeletConfigText, type ConfigFileResult } from "./load-kubelet-config-file.js";
export { createPositionLookup, locateIssues, parseIssuePath, type PositionLookup } from "../files/position-lookup.js";
