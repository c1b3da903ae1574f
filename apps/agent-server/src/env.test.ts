import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "./env";

describe("parseConfig", () => {
  it("has defaults relative to the working directory", () => {
    const config = parseConfig([], {}, "/srv/box");
    expect(config).toMatchObject({
      port: 8000,
      host: "127.0.0.1",
      sessionApiKeys: [],
      dataDir: "/srv/box/.agent-server",
      workspaceDir: "/srv/box",
      llmApiKey: undefined,
      logLevel: "info",
    });
  });

  it("reads flags over the environment, and every session key", () => {
    const config = parseConfig(
      ["--port", "0", "--host=0.0.0.0"],
      {
        PORT: "9000",
        HOST: "10.0.0.1",
        SESSION_API_KEY: "a",
        OH_SESSION_API_KEYS_0: "b",
        OH_SESSION_API_KEYS_1: "c",
        DATA_DIR: "data",
        WORKSPACE_DIR: "/work",
        LLM_API_KEY: "sk",
      },
      "/srv",
    );
    expect(config).toMatchObject({
      port: 0,
      host: "0.0.0.0",
      sessionApiKeys: ["a", "b", "c"],
      dataDir: "/srv/data",
      workspaceDir: "/work",
      llmApiKey: "sk",
    });
  });

  it("keeps secrets out of the commands' environment", () => {
    const config = parseConfig(
      [],
      { PATH: "/bin", SESSION_API_KEY: "a", OH_SESSION_API_KEYS_0: "b", LLM_API_KEY: "c" },
      "/",
    );
    expect(config.commandEnv).toEqual({ PATH: "/bin" });
  });

  it.each([
    [["--port", "http"], {}],
    [[], { PORT: "70000" }],
    [["--verbose"], {}],
    [["--port"], {}],
    [[], { LOG_LEVEL: "loud" }],
  ])("fails with a clear message on %j %j", (argv, env) => {
    expect(() => parseConfig(argv, env, "/")).toThrow(ConfigError);
  });
});
