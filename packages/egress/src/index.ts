export * from "./classify-address";
export * from "./policy";
