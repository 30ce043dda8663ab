#!/usr/bin/env bash
# Installs Debian's PostgreSQL (run as root), starts its cluster and creates the role and
# database the SQL environments' tests use:
#
#   postgresql://palaestra:palaestra@127.0.0.1:5432/palaestra
#
# The role may create roles (the environments create a read-only `palaestra_reader` role for
# the model's queries) but is not a superuser. The server runs as the `postgres` user.
# Idempotent: an installed package, a running cluster and existing roles are left as they are.
#
#   .ci/setup-postgres.sh
set -euo pipefail

if [[ "$(id -u)" != 0 ]]; then
    echo "setup-postgres: run as root (it installs the postgresql package and starts its cluster)" >&2
    exit 1
fi
if ! command -v pg_lsclusters >/dev/null 2>&1; then
    echo "setup-postgres: installing postgresql"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends postgresql >/dev/null
fi

version="$(pg_lsclusters --no-header | awk 'NR == 1 {print $1}')"
if [[ -z "$version" ]]; then
    version="$(ls /usr/lib/postgresql | sort -V | tail -n 1)"
    pg_createcluster "$version" main
fi
# pg_ctlcluster starts the server as the cluster's owner (postgres); a running one is kept.
if ! pg_lsclusters --no-header | awk -v v="$version" '$1 == v && $2 == "main"' | grep -q online; then
    pg_ctlcluster "$version" main start
fi
for _ in $(seq 30); do
    runuser -u postgres -- pg_isready -q && break
    sleep 1
done

psql_postgres() { runuser -u postgres -- psql -v ON_ERROR_STOP=1 -qtA "$@"; }
if [[ -z "$(psql_postgres -c "SELECT 1 FROM pg_roles WHERE rolname = 'palaestra'")" ]]; then
    psql_postgres -c "CREATE ROLE palaestra LOGIN CREATEROLE PASSWORD 'palaestra'"
fi
if [[ -z "$(psql_postgres -c "SELECT 1 FROM pg_database WHERE datname = 'palaestra'")" ]]; then
    psql_postgres -c "CREATE DATABASE palaestra OWNER palaestra"
fi
echo "setup-postgres: PostgreSQL $version is running;" \
    "DSN postgresql://palaestra:palaestra@127.0.0.1:5432/palaestra"
