import { AppError } from "../errors";

/**
 * What a failed file-system call means to the client. Every errno a path or a permission can
 * cause is a 4xx; only the disk running out is the server's (507). Unknown codes are a 400 that
 * says nothing about our internals.
 */
export function fsErrorToAppError(error: unknown, doing: "read" | "write"): AppError {
  const code = errnoOf(error);
  switch (code) {
    case "ENOENT":
      return doing === "read"
        ? new AppError("NOT_FOUND", "File not found")
        : new AppError("BAD_REQUEST", "path cannot be created there");
    case "ENOTDIR":
      return doing === "read"
        ? new AppError("NOT_FOUND", "File not found")
        : new AppError("BAD_REQUEST", "A parent of path is not a directory");
    case "EEXIST":
      return new AppError("BAD_REQUEST", "A parent of path is not a directory");
    case "EISDIR":
      return new AppError("BAD_REQUEST", "path is a directory");
    case "EACCES":
    case "EPERM":
      return new AppError("FORBIDDEN", "Permission denied");
    case "EROFS":
      return new AppError("FORBIDDEN", "The file system is read-only");
    case "ENAMETOOLONG":
      return new AppError("BAD_REQUEST", "path is too long");
    case "ELOOP":
      return new AppError("BAD_REQUEST", "Too many symbolic links in path");
    case "EFBIG":
      return new AppError("PAYLOAD_TOO_LARGE", "File too large");
    case "ENOSPC":
    case "EDQUOT":
      return new AppError("INSUFFICIENT_STORAGE", "No space left for the file");
    default:
      return new AppError(
        "BAD_REQUEST",
        doing === "read" ? "The file could not be read" : "The file could not be written",
      );
  }
}

export function errnoOf(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error
    ? String(error.code)
    : undefined;
}
