-- flowtrace database roles (docs/operations.md). Run ONCE per database by an administrator (a superuser or a
-- role with CREATEROLE that owns the database), before or after the job first started; running it
-- again changes nothing. NOT a migration: it is not in migrations.list and the job never runs it.
--
--   psql "$ADMIN_URL" -v ON_ERROR_STOP=1 -f deploy/sql/admin/roles.sql
--   psql "$ADMIN_URL" -c "\password flowtrace_writer"    -- interactive, nothing in a file or history
--   psql "$ADMIN_URL" -c "\password flowtrace_reader"
--   psql "$ADMIN_URL" -c "\password flowtrace_retention"
--
-- (docker/postgres/init-roles.sh does the same from environment variables; docs/operations.md.)
-- The roles are created WITHOUT a password, so they cannot log in with password authentication
-- until an administrator sets one.
--
-- flowtrace_writer: the job. It OWNS the sink tables, so the migrations it applies at start
-- (--jdbc-init-schema true, CREATE ... IF NOT EXISTS, ALTER TABLE ... ADD COLUMN IF NOT EXISTS)
-- keep working for every later version. It is no superuser and cannot create roles or databases.
-- flowtrace_reader: Grafana. SELECT on the sink tables only, read-only transactions by default.
-- flowtrace_retention: the retention CronJob. No privilege on any table: EXECUTE on
-- flowtrace_purge_older_than only, a SECURITY DEFINER function of the writer (V6 migration).

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'flowtrace_writer') THEN
        CREATE ROLE flowtrace_writer LOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'flowtrace_reader') THEN
        CREATE ROLE flowtrace_reader LOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'flowtrace_retention') THEN
        CREATE ROLE flowtrace_retention LOGIN;
    END IF;
END
$$;

ALTER ROLE flowtrace_writer NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT;
ALTER ROLE flowtrace_reader NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT;
ALTER ROLE flowtrace_retention NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT;
-- Belt and braces: a dashboard session starts read-only and cannot run away with the server.
-- (The role could SET these off: PostgreSQL lets every role set both for its own session. Its
-- privileges below are what actually stop it writing; a runaway query is the server's
-- idle/statement limits' job, or a connection pooler's.)
ALTER ROLE flowtrace_reader SET default_transaction_read_only = on;
ALTER ROLE flowtrace_reader SET statement_timeout = '30s';

-- The sink tables live in schema public. Since PostgreSQL 15 nobody but the database owner may
-- create there; revoking is a no-op then and closes the hole on older servers.
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE, CREATE ON SCHEMA public TO flowtrace_writer;
GRANT USAGE ON SCHEMA public TO flowtrace_reader;
GRANT USAGE ON SCHEMA public TO flowtrace_retention;

DO $$
BEGIN
    EXECUTE format('GRANT CONNECT, TEMPORARY ON DATABASE %I TO flowtrace_writer', current_database());
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO flowtrace_reader', current_database());
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO flowtrace_retention', current_database());
END
$$;

-- Tables the writer creates later (every migration run by the job) are readable by the reader.
ALTER DEFAULT PRIVILEGES FOR ROLE flowtrace_writer IN SCHEMA public GRANT SELECT ON TABLES TO flowtrace_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE flowtrace_writer IN SCHEMA public REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;

-- Sink tables that already exist (an earlier start as another user, or migrations an administrator
-- applied with psql): hand them to the writer and let the reader read them. A sink table is one
-- whose comment starts with 'flowtrace sink table' (every migration comments the tables it creates;
-- V5 comments those of V1-V4), so a later migration's table needs no change here.
DO $$
DECLARE
    t text;
BEGIN
    FOR t IN SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
              AND obj_description(c.oid, 'pg_class') LIKE 'flowtrace sink table%' LOOP
        EXECUTE format('ALTER TABLE public.%I OWNER TO flowtrace_writer', t);
        EXECUTE format('REVOKE ALL ON public.%I FROM flowtrace_reader', t);
        EXECUTE format('GRANT SELECT ON public.%I TO flowtrace_reader', t);
    END LOOP;
    IF to_regprocedure('public.flowtrace_purge(timestamptz)') IS NOT NULL THEN
        ALTER FUNCTION public.flowtrace_purge(timestamptz) OWNER TO flowtrace_writer;
        REVOKE ALL ON FUNCTION public.flowtrace_purge(timestamptz) FROM PUBLIC;
    END IF;
    IF to_regprocedure('public.flowtrace_purge_older_than(interval)') IS NOT NULL THEN
        ALTER FUNCTION public.flowtrace_purge_older_than(interval) OWNER TO flowtrace_writer;
        REVOKE ALL ON FUNCTION public.flowtrace_purge_older_than(interval) FROM PUBLIC;
        GRANT EXECUTE ON FUNCTION public.flowtrace_purge_older_than(interval) TO flowtrace_retention;
    END IF;
END
$$;
