/** Calls a sandbox's agent server directly, as a client holding its session key would. */
export async function agentRequest(
  agentServerUrl: string,
  sessionApiKey: string | null,
  method: "GET" | "POST",
  route: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = {};
  if (sessionApiKey) headers["x-session-api-key"] = sessionApiKey;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${agentServerUrl}${route}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed };
}

/** Runs a command in the sandbox through its agent server; its standard output. */
export async function runInSandbox(
  agentServerUrl: string,
  sessionApiKey: string,
  command: string,
): Promise<string> {
  const answer = await agentRequest(
    agentServerUrl,
    sessionApiKey,
    "POST",
    "/api/bash/execute_bash_command",
    { command, timeout: 30 },
  );
  if (answer.status !== 200) throw new Error(`execute_bash_command answered ${answer.status}`);
  return (answer.body as { stdout?: string | null }).stdout ?? "";
}
