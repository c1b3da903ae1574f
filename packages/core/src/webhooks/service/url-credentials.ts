/**
 * A webhook URL may carry credentials (`https://user:password@host/…`). They are used for every
 * delivery (as HTTP Basic authentication) but never shown: reads answer the URL with the
 * password as `***` (a lone user name, often a token, as `***` too), and nothing logs the URL.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (!parsed.username && !parsed.password) return url;
  if (parsed.password) parsed.password = "***";
  else parsed.username = "***";
  return parsed.href;
}

/** The URL to POST to (without credentials) and the Authorization header its credentials make. */
export function splitCredentials(url: string): { url: URL; authorization: string | null } {
  const parsed = new URL(url);
  if (!parsed.username && !parsed.password) return { url: parsed, authorization: null };
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = "";
  parsed.password = "";
  const basic = Buffer.from(`${user}:${password}`, "utf8").toString("base64");
  return { url: parsed, authorization: `Basic ${basic}` };
}
