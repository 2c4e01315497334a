CREATE TABLE `callback_deliveries` (
	`run_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`tenant_id` text NOT NULL,
	`url` text NOT NULL,
	`status` integer,
	`error` text,
	`at` text NOT NULL,
	PRIMARY KEY(`run_id`, `attempt`)
);
--> statement-breakpoint
CREATE TABLE `judge_labels` (
	`run_id` text NOT NULL,
	`seq` integer NOT NULL,
	`tenant_id` text NOT NULL,
	`suite_name` text NOT NULL,
	`label` text,
	`score` integer,
	`note` text,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`run_id`, `seq`)
);
--> statement-breakpoint
CREATE INDEX `judge_labels_suite` ON `judge_labels` (`tenant_id`,`suite_name`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`webhook_id` text NOT NULL,
	`tenant_id` text,
	`delivery_id` text,
	`outcome` text NOT NULL,
	`reason` text,
	`run_id` text,
	`source` text,
	`received_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_webhook` ON `webhook_deliveries` (`webhook_id`,`received_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_accepted` ON `webhook_deliveries` (`webhook_id`,`delivery_id`) WHERE outcome = 'accepted';--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`suite_name` text NOT NULL,
	`format` text NOT NULL,
	`sealed_secret` text NOT NULL,
	`runs_per_scenario` integer,
	`label` text,
	`callback_url` text,
	`events` text,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`rotated_at` text,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `webhooks_tenant` ON `webhooks` (`tenant_id`,`created_at`);