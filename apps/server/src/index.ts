export { createApp } from "./http/app";
export { type RunningServer, type StartServerOptions, startServer } from "./server";
