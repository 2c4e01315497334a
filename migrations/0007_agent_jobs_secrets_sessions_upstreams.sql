CREATE TABLE `agent_jobs` (
	`attempt_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`run_id` text NOT NULL,
	`seq` integer NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `agent_secrets` (
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`sealed_secret` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`tenant_id`, `name`)
);
--> statement-breakpoint
CREATE TABLE `dashboard_sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`key_hash` text NOT NULL,
	`tenant_id` text NOT NULL,
	`csrf_token` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `dashboard_sessions_expiry` ON `dashboard_sessions` (`expires_at`);--> statement-breakpoint
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
ALTER TABLE `attempt_calls` ADD `state_change` text;--> statement-breakpoint
ALTER TABLE `attempt_calls` ADD `upstream` text;