#!/bin/sh
# Runs once, when the postgres container initialises an empty data directory
# (/docker-entrypoint-initdb.d). Creates the flowtrace roles with deploy/sql/admin/roles.sql and sets
# their passwords from the environment: psql variables (:'name') quote them, so nothing is written
# to a file and no shell interpolates them into SQL.
set -eu
: "${FLOWTRACE_PG_WRITER_PASSWORD:?set FLOWTRACE_PG_WRITER_PASSWORD (docker/env.example)}"
: "${FLOWTRACE_PG_READER_PASSWORD:?set FLOWTRACE_PG_READER_PASSWORD (docker/env.example)}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -f /flowtrace/sql/admin/roles.sql
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
     -v writer="$FLOWTRACE_PG_WRITER_PASSWORD" -v reader="$FLOWTRACE_PG_READER_PASSWORD" <<'SQL'
ALTER ROLE flowtrace_writer PASSWORD :'writer';
ALTER ROLE flowtrace_reader PASSWORD :'reader';
SQL
