CREATE TABLE `connections` (
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`base_url` text NOT NULL,
	`model` text NOT NULL,
	`api_version` text,
	`header_names` text NOT NULL,
	`sealed` text NOT NULL,
	`timeout_ms` integer NOT NULL,
	`max_retries` integer NOT NULL,
	`max_concurrency` integer NOT NULL,
	`structured_output` integer NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `name`)
);
--> statement-breakpoint
CREATE TABLE `run_repetitions` (
	`run_id` text NOT NULL,
	`seq` integer NOT NULL,
	`tenant_id` text NOT NULL,
	`scenario_id` text NOT NULL,
	`repetition` integer NOT NULL,
	`attempt_id` text NOT NULL,
	`outcome` text NOT NULL,
	`record` text NOT NULL,
	PRIMARY KEY(`run_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `runs` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`suite_name` text NOT NULL,
	`suite_version` integer NOT NULL,
	`label` text,
	`status` text NOT NULL,
	`verdict` text,
	`hard_fail` integer DEFAULT false NOT NULL,
	`pass_rate` real,
	`runs_per_scenario` integer NOT NULL,
	`total_repetitions` integer NOT NULL,
	`finished_repetitions` integer DEFAULT 0 NOT NULL,
	`trigger` text NOT NULL,
	`pinned` text NOT NULL,
	`summary` text,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`started_at` text,
	`finished_at` text
);
--> statement-breakpoint
CREATE INDEX `runs_tenant_created` ON `runs` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `runs_tenant_suite` ON `runs` (`tenant_id`,`suite_name`,`created_at`);--> statement-breakpoint
CREATE TABLE `suite_versions` (
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`version` integer NOT NULL,
	`document` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`tenant_id`, `name`, `version`)
);
--> statement-breakpoint
-- Suite versions are history like policy versions: never rewritten, never removed, never replaced.
CREATE TRIGGER suite_versions_no_update BEFORE UPDATE ON suite_versions
BEGIN
  SELECT RAISE(ABORT, 'suite_versions is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER suite_versions_no_delete BEFORE DELETE ON suite_versions
BEGIN
  SELECT RAISE(ABORT, 'suite_versions is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER suite_versions_no_overwrite BEFORE INSERT ON suite_versions
WHEN EXISTS (SELECT 1 FROM suite_versions WHERE tenant_id = NEW.tenant_id AND name = NEW.name AND version = NEW.version)
BEGIN
  SELECT RAISE(ABORT, 'suite_versions is append-only');
END;
