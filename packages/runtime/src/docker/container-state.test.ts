import type Dockerode from "dockerode";
import { describe, expect, it } from "vitest";
import { demultiplex } from "./container-logs";
import { observeContainer } from "./container-state";

type State = Dockerode.ContainerInspectInfo["State"];

function containerInfo(state: Partial<State>, memory = 0): Dockerode.ContainerInspectInfo {
  const info = {
    State: {
      Status: "running",
      Running: true,
      Paused: false,
      OOMKilled: false,
      ExitCode: 0,
      Error: "",
      FinishedAt: "0001-01-01T00:00:00Z",
      ...state,
    },
    Config: { Labels: { "sandbox-server.label.team": "blue", "sandbox-server.owner": "u" } },
    HostConfig: { Memory: memory },
    NetworkSettings: {
      Ports: { "8000/tcp": [{ HostIp: "127.0.0.1", HostPort: "49153" }] },
    },
  };
  return info as unknown as Dockerode.ContainerInspectInfo;
}

describe("observeContainer", () => {
  it("reads the loopback URL and the user labels of a running container", () => {
    const observed = observeContainer(containerInfo({}));
    expect(observed).toEqual({
      state: "running",
      agentServerUrl: "http://127.0.0.1:49153",
      detail: null,
      labels: { team: "blue" },
    });
  });

  it("sees a paused container as paused", () => {
    expect(observeContainer(containerInfo({ Status: "paused", Paused: true })).state).toBe(
      "paused",
    );
  });

  it("names the signal of a killed container", () => {
    const observed = observeContainer(
      containerInfo({ Status: "exited", Running: false, ExitCode: 137 }),
    );
    expect(observed.state).toBe("exited");
    expect(observed.detail).toContain("exited with code 137 (SIGKILL)");
    expect(observed.detail).not.toContain("OOM");
  });

  it("says OOM and the limit when the kernel killed it for memory", () => {
    const observed = observeContainer(
      containerInfo(
        { Status: "exited", Running: false, ExitCode: 137, OOMKilled: true },
        64 * 1024 * 1024,
      ),
    );
    expect(observed.detail).toMatch(/OOM/);
    expect(observed.detail).toContain("memory limit of 64 MiB exceeded");
  });

  it("treats a created-but-not-started container as starting", () => {
    expect(observeContainer(containerInfo({ Status: "created", Running: false })).state).toBe(
      "starting",
    );
  });
});

describe("demultiplex", () => {
  it("joins Docker's framed stdout and stderr chunks", () => {
    const frame = (stream: number, text: string) => {
      const body = Buffer.from(text);
      const header = Buffer.alloc(8);
      header[0] = stream;
      header.writeUInt32BE(body.length, 4);
      return Buffer.concat([header, body]);
    };
    expect(demultiplex(Buffer.concat([frame(1, "out\n"), frame(2, "err\n")]))).toBe("out\nerr\n");
  });

  it("passes unframed output through", () => {
    expect(demultiplex(Buffer.from("plain text output"))).toBe("plain text output");
  });
});
