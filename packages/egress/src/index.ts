export * from "./address-ranges";
export * from "./classify-address";
export * from "./policy";
