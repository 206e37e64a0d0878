-- The retention CronJob logs in as flowtrace_retention (deploy/sql/admin/roles.sql), a role that may
-- not read, write or delete any table. The purge functions of V5 run with their owner's rights (the
-- writer's) instead, with a fixed search_path so that no caller can put its own objects in front of
-- the sink tables; EXECUTE stays revoked from PUBLIC, so only the writer and the roles granted it
-- below can purge. Re-applied at every start, after V5's CREATE OR REPLACE has reset the attributes.
ALTER FUNCTION flowtrace_purge(timestamptz) SECURITY DEFINER SET search_path = public, pg_temp;
ALTER FUNCTION flowtrace_purge_older_than(interval) SECURITY DEFINER SET search_path = public, pg_temp;
REVOKE ALL ON FUNCTION flowtrace_purge(timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION flowtrace_purge_older_than(interval) FROM PUBLIC;

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'flowtrace_retention') THEN
        GRANT EXECUTE ON FUNCTION flowtrace_purge_older_than(interval) TO flowtrace_retention;
    END IF;
END
$$;
