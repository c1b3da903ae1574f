CREATE TABLE `conversation_start_tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`status` text NOT NULL,
	`detail` text,
	`app_conversation_id` text,
	`sandbox_id` text,
	`agent_server_url` text,
	`request` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `conversation_start_tasks_owner_created_idx` ON `conversation_start_tasks` (`owner_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `conversation_start_tasks_owner_updated_idx` ON `conversation_start_tasks` (`owner_id`,`updated_at`,`id`);--> statement-breakpoint
ALTER TABLE `conversations` ADD `parent_conversation_id` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `public` integer;--> statement-breakpoint
ALTER TABLE `conversations` ADD `selected_repository` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `selected_branch` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `git_provider` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `trigger` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `llm_model` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `pr_number` text DEFAULT '[]' NOT NULL;