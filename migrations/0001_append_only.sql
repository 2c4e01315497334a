-- History is evidence: no code path, and no bug, may rewrite or remove a saved revision or policy version.
-- One simple statement per trigger body (wrangler's SQL splitter cannot handle CASE ... END here).
CREATE TRIGGER tool_mock_revisions_no_update BEFORE UPDATE ON tool_mock_revisions
BEGIN
  SELECT RAISE(ABORT, 'tool_mock_revisions is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER tool_mock_revisions_no_delete BEFORE DELETE ON tool_mock_revisions
BEGIN
  SELECT RAISE(ABORT, 'tool_mock_revisions is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER policy_versions_no_update BEFORE UPDATE ON policy_versions
BEGIN
  SELECT RAISE(ABORT, 'policy_versions is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER policy_versions_no_delete BEFORE DELETE ON policy_versions
BEGIN
  SELECT RAISE(ABORT, 'policy_versions is append-only');
END;
