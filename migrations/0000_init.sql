CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`key_hash` text NOT NULL,
	`permissions` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`last_used_at` text,
	`revoked_at` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_tenant` ON `api_keys` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `attempt_calls` (
	`attempt_id` text NOT NULL,
	`seq` integer NOT NULL,
	`tenant_id` text NOT NULL,
	`call_id` text,
	`tool` text NOT NULL,
	`operation_id` text NOT NULL,
	`revision` integer,
	`variant` text,
	`rule` integer,
	`arguments` text NOT NULL,
	`outcome` text NOT NULL,
	`result` text,
	`error` text,
	`delay_ms` integer NOT NULL,
	`at` text NOT NULL,
	PRIMARY KEY(`attempt_id`, `seq`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `attempt_calls_call_id` ON `attempt_calls` (`attempt_id`,`call_id`);--> statement-breakpoint
CREATE TABLE `attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`simulation_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` text NOT NULL,
	`status` text NOT NULL,
	`completion` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`simulation_id`) REFERENCES `simulations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `attempts_token_hash_unique` ON `attempts` (`token_hash`);--> statement-breakpoint
CREATE INDEX `attempts_simulation` ON `attempts` (`simulation_id`);--> statement-breakpoint
CREATE TABLE `policy_versions` (
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`version` integer NOT NULL,
	`document` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`tenant_id`, `name`, `version`)
);
--> statement-breakpoint
CREATE TABLE `simulations` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`created_by` text NOT NULL,
	`lease_seconds` integer NOT NULL,
	`pinned` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `simulations_tenant` ON `simulations` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `tenants` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tenants_name_unique` ON `tenants` (`name`);--> statement-breakpoint
CREATE TABLE `tool_mock_revisions` (
	`tenant_id` text NOT NULL,
	`tool_id` text NOT NULL,
	`operation_id` text NOT NULL,
	`revision` integer NOT NULL,
	`contract_hash` text NOT NULL,
	`definition` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`tool_id`, `operation_id`, `revision`)
);
--> statement-breakpoint
CREATE TABLE `tool_operations` (
	`tool_id` text NOT NULL,
	`operation_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`position` integer NOT NULL,
	`description` text NOT NULL,
	`input_schema` text NOT NULL,
	`output_schema` text,
	`annotations` text,
	`contract_hash` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`tool_id`, `operation_id`),
	FOREIGN KEY (`tool_id`) REFERENCES `tools`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `tools` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`kind` text NOT NULL,
	`output_schema` text,
	`source` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tools_tenant_created` ON `tools` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `tools_tenant_name` ON `tools` (`tenant_id`,`name`);