ALTER TABLE `sandbox_specs` ADD `lifetime` text;--> statement-breakpoint
ALTER TABLE `sandboxes` ADD `active_limit_ms` integer;--> statement-breakpoint
ALTER TABLE `sandboxes` ADD `on_timeout` text;--> statement-breakpoint
ALTER TABLE `sandboxes` ADD `idle_pause_after_ms` integer;--> statement-breakpoint
ALTER TABLE `sandboxes` ADD `delete_paused_after_ms` integer;--> statement-breakpoint
ALTER TABLE `sandboxes` ADD `active_ms` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sandboxes` ADD `running_since` integer;--> statement-breakpoint
ALTER TABLE `sandboxes` ADD `paused_at` integer;--> statement-breakpoint
ALTER TABLE `sandboxes` ADD `lifetime_due_at` integer;--> statement-breakpoint
CREATE INDEX `sandboxes_lifetime_due_idx` ON `sandboxes` (`lifetime_due_at`);