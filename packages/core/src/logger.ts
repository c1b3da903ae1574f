// One logger shape and one silent logger for the control plane, defined in the runtime package.
export { type Logger, silentLogger } from "@sandbox-server/runtime";
