export * from "./docker";
export { errorMessage } from "./error-message";
export * from "./health";
export { KeyedLock } from "./keyed-lock";
export {
  type BwrapSupport,
  type DetectBwrapOptions,
  detectBwrap,
  type UsableBwrap,
} from "./process/isolation/detect-bwrap";
export { type CgroupSupport, detectCgroups } from "./process/isolation/detect-cgroups";
export { detectNetns } from "./process/network/detect-netns";
export { POOL_SIZE as NETNS_POOL_SIZE, poolPrefixOf } from "./process/network/netns-pool";
export { hostAddressOf } from "./process/network/veth-link";
export * from "./process/process-runtime";
export { findSandboxProcesses } from "./process/sandbox-processes";
export type * from "./types";
