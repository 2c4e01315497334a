DROP INDEX `tools_tenant_name`;--> statement-breakpoint
ALTER TABLE `tools` ADD `archived_at` text;--> statement-breakpoint
CREATE UNIQUE INDEX `tools_tenant_name` ON `tools` (`tenant_id`,`name`) WHERE archived_at IS NULL;