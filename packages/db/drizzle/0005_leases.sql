CREATE TABLE `leases` (
	`name` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`acquired_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `claimed_by` text;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `claimed_until` integer;