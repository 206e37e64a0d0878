-- flowtrace sink schema, version 13: the close-time row of a short flow (docs/job.md, "Flow rows in
-- PostgreSQL"). A flow that closes before its first periodic update gets its flow_summary row at the
-- packet that closed it, not final and (under --flow-rows all) without the report JSON (NULL), and its final row after the
-- close linger fills report as before; a final row always has it (the check). Idempotent: the job
-- applies every migration of migrations.list at every start.

ALTER TABLE flow_summary ALTER COLUMN report DROP NOT NULL;

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_constraint
                   WHERE conname = 'flow_summary_final_has_report' AND conrelid = 'flow_summary'::regclass) THEN
        ALTER TABLE flow_summary ADD CONSTRAINT flow_summary_final_has_report CHECK (report IS NOT NULL OR NOT final);
    END IF;
END $$;
