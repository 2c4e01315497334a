CREATE TABLE `callback_sends` (
	`run_id` text PRIMARY KEY NOT NULL,
	`claimed_until` integer NOT NULL,
	`delivered_at` text
);
--> statement-breakpoint
ALTER TABLE `agent_jobs` ADD `accepted_at` text;--> statement-breakpoint
CREATE INDEX `run_repetitions_attempt` ON `run_repetitions` (`attempt_id`);