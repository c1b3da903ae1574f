ALTER TABLE `sandbox_specs` ADD `network` text;--> statement-breakpoint
ALTER TABLE `sandboxes` ADD `network` text DEFAULT '{"allowInternet":true,"allowOut":[],"denyOut":[]}' NOT NULL;