ALTER TABLE "sandbox_specs" ADD COLUMN "lifetime" jsonb;--> statement-breakpoint
ALTER TABLE "sandboxes" ADD COLUMN "active_limit_ms" bigint;--> statement-breakpoint
ALTER TABLE "sandboxes" ADD COLUMN "on_timeout" text;--> statement-breakpoint
ALTER TABLE "sandboxes" ADD COLUMN "idle_pause_after_ms" bigint;--> statement-breakpoint
ALTER TABLE "sandboxes" ADD COLUMN "delete_paused_after_ms" bigint;--> statement-breakpoint
ALTER TABLE "sandboxes" ADD COLUMN "active_ms" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "sandboxes" ADD COLUMN "running_since" bigint;--> statement-breakpoint
ALTER TABLE "sandboxes" ADD COLUMN "paused_at" bigint;--> statement-breakpoint
ALTER TABLE "sandboxes" ADD COLUMN "lifetime_due_at" bigint;--> statement-breakpoint
CREATE INDEX "sandboxes_lifetime_due_idx" ON "sandboxes" USING btree ("lifetime_due_at");