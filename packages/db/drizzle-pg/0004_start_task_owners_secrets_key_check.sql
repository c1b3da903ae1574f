CREATE TABLE "secrets_key_check" (
	"id" text PRIMARY KEY NOT NULL,
	"check_value" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "conversation_start_tasks" ADD COLUMN "replica_id" text;--> statement-breakpoint
ALTER TABLE "conversation_start_tasks" ADD COLUMN "idempotency_record_id" text;--> statement-breakpoint
CREATE INDEX "conversation_start_tasks_status_idx" ON "conversation_start_tasks" USING btree ("status");