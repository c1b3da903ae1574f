import { describe, expect, it } from "vitest";
import { ConfigError, DEFAULT_LIMITS, parseConfig } from "./env";

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
      filesRoot: "/",
      limits: DEFAULT_LIMITS,
    });
  });

  it("reads the files root and the HTTP limits from flags over the environment", () => {
    const config = parseConfig(
      ["--files-root=/srv/box/", "--headers-timeout-ms", "500", "--upload-limit-bytes=1024"],
      {
        FILES_ROOT: "/elsewhere",
        HEADERS_TIMEOUT_MS: "9",
        REQUEST_TIMEOUT_MS: "1000",
        KEEP_ALIVE_TIMEOUT_MS: "200",
        BODY_IDLE_TIMEOUT_MS: "300",
        JSON_BODY_LIMIT_BYTES: "2048",
      },
      "/",
    );
    expect(config.filesRoot).toBe("/srv/box/");
    expect(config.limits).toEqual({
      headersTimeoutMs: 500,
      requestTimeoutMs: 1000,
      keepAliveTimeoutMs: 200,
      bodyIdleTimeoutMs: 300,
      jsonBodyLimitBytes: 2048,
      uploadLimitBytes: 1024,
    });
  });

  it("reads flags over the environment, and every session key", () => {
    const config = parseConfig(
      ["--port", "0", "--host=0.0.0.0", "--files-root=/srv/files", "--files-root", "/srv"],
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
      filesRoot: "/srv",
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
    [["--port", "--host", "0.0.0.0"], {}],
    [["-p", "80"], {}],
    [["--", "--port", "80"], {}],
    [[], { LOG_LEVEL: "loud" }],
    [["extra"], {}],
    [["--files-root", "relative"], {}],
    [["--headers-timeout-ms", "0"], {}],
    [["--request-timeout-ms", "1.5"], {}],
    [["--headers-timeout-ms", "2000", "--request-timeout-ms", "1000"], {}],
    [[], { UPLOAD_LIMIT_BYTES: "-1" }],
  ])("fails with a clear message on %j %j", (argv, env) => {
    expect(() => parseConfig(argv, env, "/")).toThrow(ConfigError);
  });
});
