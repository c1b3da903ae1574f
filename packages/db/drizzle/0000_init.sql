CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_idx` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE TABLE `conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`sandbox_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`title` text,
	`agent` text NOT NULL,
	`metadata` text NOT NULL,
	`archived` integer DEFAULT false NOT NULL,
	`execution_status` text,
	`last_event_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `conversations_owner_created_idx` ON `conversations` (`owner_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `conversations_owner_updated_idx` ON `conversations` (`owner_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `conversations_sandbox_idx` ON `conversations` (`sandbox_id`);--> statement-breakpoint
CREATE TABLE `sandbox_specs` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`runtime` text DEFAULT 'any' NOT NULL,
	`image` text,
	`command` text,
	`working_dir` text,
	`initial_env` text NOT NULL,
	`cpu` real,
	`memory_mb` integer,
	`pids` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sandboxes` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`spec_id` text NOT NULL,
	`runtime` text NOT NULL,
	`status` text NOT NULL,
	`status_detail` text,
	`session_api_key` text NOT NULL,
	`agent_server_url` text,
	`labels` text NOT NULL,
	`env` text NOT NULL,
	`last_activity_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sandboxes_owner_created_idx` ON `sandboxes` (`owner_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `sandboxes_status_idx` ON `sandboxes` (`status`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`is_admin` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
