import { createHash, timingSafeEqual } from "node:crypto";
import type { Core } from "@sandbox-server/core";
import type { Request, Response } from "express";
import { sendErrorCode } from "../http/error-response";
import { contextFor } from "../http/request-context";
import type { ServerMetrics } from "./registry";

const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * `GET /metrics` (Prometheus text format) for the metrics token (`METRICS_TOKEN`, as
 * `Authorization: Bearer`) or an admin's API key: 401 without either, 403 for a normal user's key.
 */
export function metricsRoute(options: {
  core: Core;
  metrics: ServerMetrics;
  metricsToken?: string | undefined;
}) {
  const token = options.metricsToken ? digest(options.metricsToken) : null;
  return async (req: Request, res: Response) => {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
    // Compared as digests: constant time whatever the lengths.
    const byToken =
      token !== null && bearer !== undefined && timingSafeEqual(digest(bearer), token);
    if (!byToken) {
      const { user } = await contextFor(options.core, req);
      if (!user) return sendErrorCode(res, "UNAUTHORIZED");
      if (!user.isAdmin) {
        return sendErrorCode(
          res,
          "FORBIDDEN",
          "Only admins and the metrics token may read metrics",
        );
      }
    }
    const text = await options.metrics.registry.metrics();
    res.setHeader("content-type", options.metrics.registry.contentType);
    res.setHeader("cache-control", "no-store");
    res.send(text);
  };
}
