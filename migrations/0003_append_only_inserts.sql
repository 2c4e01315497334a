-- REPLACE (INSERT OR REPLACE, REPLACE INTO) removes the row it conflicts with without firing
-- DELETE triggers, so 0001's triggers alone let it rewrite history. An insert whose key is taken
-- is refused before any conflict resolution runs; new keys (the next revision or version) pass.
-- One simple statement per trigger body (wrangler's SQL splitter cannot handle CASE ... END here).
CREATE TRIGGER tool_mock_revisions_no_overwrite BEFORE INSERT ON tool_mock_revisions
WHEN EXISTS (SELECT 1 FROM tool_mock_revisions WHERE tool_id = NEW.tool_id AND operation_id = NEW.operation_id AND revision = NEW.revision)
BEGIN
  SELECT RAISE(ABORT, 'tool_mock_revisions is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER policy_versions_no_overwrite BEFORE INSERT ON policy_versions
WHEN EXISTS (SELECT 1 FROM policy_versions WHERE tenant_id = NEW.tenant_id AND name = NEW.name AND version = NEW.version)
BEGIN
  SELECT RAISE(ABORT, 'policy_versions is append-only');
END;
