// One implementation, in the runtime package (the lowest layer both use).
export { KeyedLock } from "@sandbox-server/runtime";
