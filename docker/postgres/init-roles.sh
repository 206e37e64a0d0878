#!/bin/sh
# Runs once, when the postgres container initialises an empty data directory
# (/docker-entrypoint-initdb.d). Creates the flowtrace roles with deploy/sql/admin/roles.sql and sets
# their passwords from the environment. The passwords never appear on a command line (ps shows
# those to every local user): psql reads them itself with \getenv (psql 15 and later), and psql
# variables (:'name') quote them, so no shell interpolates them into SQL and nothing is written to a file.
# FLOWTRACE_SQL_DIR: where deploy/sql is mounted (compose.yaml: /flowtrace/sql).
set -eu
: "${FLOWTRACE_PG_WRITER_PASSWORD:?set FLOWTRACE_PG_WRITER_PASSWORD (docker/env.example)}"
: "${FLOWTRACE_PG_READER_PASSWORD:?set FLOWTRACE_PG_READER_PASSWORD (docker/env.example)}"
sql_dir="${FLOWTRACE_SQL_DIR:-/flowtrace/sql}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -f "$sql_dir/admin/roles.sql"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<'SQL'
\getenv writer FLOWTRACE_PG_WRITER_PASSWORD
\getenv reader FLOWTRACE_PG_READER_PASSWORD
ALTER ROLE flowtrace_writer PASSWORD :'writer';
ALTER ROLE flowtrace_reader PASSWORD :'reader';
SQL
