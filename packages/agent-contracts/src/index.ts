export * from "./bash";
export * from "./conversations";
export * from "./events";
export * from "./messages";
