CREATE TABLE `tool_upstreams` (
	`tenant_id` text NOT NULL,
	`tool_id` text NOT NULL,
	`config` text NOT NULL,
	`credential_names` text NOT NULL,
	`sealed` text,
	`updated_by` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `tool_id`)
);
--> statement-breakpoint
CREATE TABLE `upstream_hosts` (
	`tenant_id` text NOT NULL,
	`host` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`tenant_id`, `host`)
);
--> statement-breakpoint
ALTER TABLE `attempt_calls` ADD `upstream` text;