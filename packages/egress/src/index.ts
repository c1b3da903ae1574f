export * from "./address-ranges";
export * from "./classify-address";
export {
  decideEgress,
  type EgressConnection,
  matches as egressTargetMatches,
} from "./decide-egress";
export { checkWithinOperator, parseOperatorEgressPolicy } from "./operator-policy";
export { EgressEntryError, formatEgressTarget, parseEgressEntry } from "./parse-entry";
export * from "./policy";
