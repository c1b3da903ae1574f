import { InvalidArgumentError } from "commander";

/** `--label key=value`, repeatable, into a record. */
export function collectPair(value: string, previous: Record<string, string> = {}) {
  const at = value.indexOf("=");
  if (at <= 0) throw new InvalidArgumentError(`expected key=value, got "${value}"`);
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

/** A repeatable option's values, in order. */
export function collectList(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function positiveNumber(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) {
    throw new InvalidArgumentError(`expected a positive number, got "${value}"`);
  }
  return number;
}

/** A duration in whole seconds, 1 or more (the server holds it to its own maximum). */
export function wholeSeconds(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new InvalidArgumentError(`expected whole seconds (1 or more), got "${value}"`);
  }
  return number;
}

export function pageSize(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > 100) {
    throw new InvalidArgumentError(`expected 1..100, got "${value}"`);
  }
  return number;
}

export function portNumber(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > 65535) {
    throw new InvalidArgumentError(`expected a port (0-65535), got "${value}"`);
  }
  return number;
}

/** A port inside a sandbox: 0 names no port there (only a listener's "pick one"). */
export function sandboxPort(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > 65535) {
    throw new InvalidArgumentError(`expected a port of the sandbox (1-65535), got "${value}"`);
  }
  return number;
}
