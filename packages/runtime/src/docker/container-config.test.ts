import { describe, expect, it } from "vitest";
import { buildContainerConfig, type ContainerDefaults } from "./container-config";
import { DEFAULT_SANDBOX_IMAGE } from "./options";

const defaults: ContainerDefaults = {
  image: DEFAULT_SANDBOX_IMAGE,
  instance: "cp-1",
  resources: { cpu: 1, memoryMb: 1024, pids: 512 },
};

const options = {
  sandboxId: "sb_abc",
  ownerId: "user-1",
  specId: "default",
  sessionApiKey: "secret-key",
  env: { LLM_MODEL: "m", SESSION_API_KEY: "attempted-override" },
  labels: { team: "blue", "sandbox-server.managed": "false" },
};

describe("buildContainerConfig", () => {
  it("names, labels and publishes the agent server on loopback only", () => {
    const config = buildContainerConfig(options, defaults);

    expect(config.name).toBe("sandbox-server-sb_abc");
    expect(config.Labels).toMatchObject({
      "sandbox-server.managed": "cp-1",
      "sandbox-server.sandbox-id": "sb_abc",
      "sandbox-server.owner": "user-1",
      "sandbox-server.spec": "default",
      "sandbox-server.label.team": "blue",
      // A user label cannot pose as the runtime's own.
      "sandbox-server.label.sandbox-server.managed": "false",
    });
    expect(config.HostConfig?.PortBindings).toEqual({
      "8000/tcp": [{ HostIp: "127.0.0.1", HostPort: "" }],
    });
  });

  it("passes the session key last, so the sandbox env cannot replace it", () => {
    const config = buildContainerConfig(options, defaults);
    expect(config.Env).toContain("SESSION_API_KEY=secret-key");
    expect(config.Env).not.toContain("SESSION_API_KEY=attempted-override");
    expect(config.Env).toContain("LLM_MODEL=m");
  });

  it("applies default limits and lets the options override some of them", () => {
    const host = buildContainerConfig({ ...options, resources: { cpu: 0.5 } }, defaults).HostConfig;
    expect(host).toMatchObject({
      Memory: 1024 * 1024 * 1024,
      MemorySwap: 1024 * 1024 * 1024,
      NanoCpus: 500_000_000,
      PidsLimit: 512,
      Init: true,
      Privileged: false,
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
    });
    expect(host?.Binds).toBeUndefined();
  });

  it("uses the requested image, command and working directory", () => {
    const config = buildContainerConfig(
      { ...options, image: "custom:1", command: ["sleep", "1"], workingDir: "/work" },
      { ...defaults, network: "sandboxes" },
    );
    expect(config.Image).toBe("custom:1");
    expect(config.Cmd).toEqual(["sleep", "1"]);
    expect(config.WorkingDir).toBe("/work");
    expect(config.Env).toContain("WORKSPACE_DIR=/work");
    expect(config.HostConfig?.NetworkMode).toBe("sandboxes");
  });

  it("sets the OCI runtime only when one is configured", () => {
    expect(buildContainerConfig(options, defaults).HostConfig?.Runtime).toBeUndefined();
    const config = buildContainerConfig(options, { ...defaults, ociRuntime: "runsc" });
    expect(config.HostConfig?.Runtime).toBe("runsc");
  });

  it("rejects limits Docker would refuse or that make no sense", () => {
    expect(() =>
      buildContainerConfig({ ...options, resources: { memoryMb: 1 } }, defaults),
    ).toThrow(/memoryMb/);
    expect(() => buildContainerConfig({ ...options, resources: { cpu: 0 } }, defaults)).toThrow(
      /cpu/,
    );
    expect(() => buildContainerConfig({ ...options, resources: { pids: 1.5 } }, defaults)).toThrow(
      /pids/,
    );
  });
});
