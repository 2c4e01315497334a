CREATE TABLE `dataset_versions` (
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`version` integer NOT NULL,
	`content_hash` text NOT NULL,
	`bytes` integer NOT NULL,
	`description` text,
	`created_by` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`tenant_id`, `name`, `version`)
);
--> statement-breakpoint
CREATE TRIGGER dataset_versions_no_update BEFORE UPDATE ON dataset_versions
BEGIN
  SELECT RAISE(ABORT, 'dataset_versions is append-only');
END;--> statement-breakpoint
CREATE TRIGGER dataset_versions_no_delete BEFORE DELETE ON dataset_versions
BEGIN
  SELECT RAISE(ABORT, 'dataset_versions is append-only');
END;--> statement-breakpoint
CREATE TRIGGER dataset_versions_no_overwrite BEFORE INSERT ON dataset_versions
WHEN EXISTS (SELECT 1 FROM dataset_versions WHERE tenant_id = NEW.tenant_id AND name = NEW.name AND version = NEW.version)
BEGIN
  SELECT RAISE(ABORT, 'dataset_versions is append-only');
END;
