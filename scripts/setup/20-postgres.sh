# A PostgreSQL server from Debian's packages on 127.0.0.1, run as a non-root user, for the SQL
# chat-memory tests. Exports WIELD_TEST_POSTGRES_URL. Reuses a server already started by an
# earlier run of this script.
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/postgres" ]; then
	as_root=""
	[ "$(id -u)" -ne 0 ] && as_root=sudo
	$as_root apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends postgresql >/dev/null
	pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
fi

pg_data="$WIELD_TOOLS/postgres/data"
pg_log="$WIELD_TOOLS/postgres/server.log"
# PostgreSQL refuses to run as root: use the postgres account the package creates.
pg_run() { "$@"; }
if [ "$(id -u)" -eq 0 ]; then
	pg_run() { runuser -u postgres -- "$@"; }
	mkdir -p "$WIELD_TOOLS/postgres"
	chown postgres: "$WIELD_TOOLS/postgres"
	# The postgres user must be able to reach the data directory.
	d="$WIELD_TOOLS/postgres"
	while [ "$d" != / ]; do chmod o+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
else
	mkdir -p "$WIELD_TOOLS/postgres"
fi
if [ ! -f "$pg_data/PG_VERSION" ]; then
	pg_run "$pg_bin/initdb" -D "$pg_data" -U wield --auth=trust -E UTF8 >/dev/null
fi
if pg_run "$pg_bin/pg_ctl" -D "$pg_data" status >/dev/null 2>&1; then
	# Our server from an earlier run: its port is the fourth line of postmaster.pid.
	pg_port=$(sed -n 4p "$pg_data/postmaster.pid")
else
	# $WIELD_PG_PORT, or the first free port from 55432 (another checkout's server may hold one).
	pg_port=${WIELD_PG_PORT:-55432}
	if [ -z "${WIELD_PG_PORT:-}" ]; then
		while (exec 3<>"/dev/tcp/127.0.0.1/$pg_port") 2>/dev/null; do pg_port=$((pg_port + 1)); done
	fi
	pg_run "$pg_bin/pg_ctl" -D "$pg_data" -l "$pg_log" -w -t 60 \
		-o "-h 127.0.0.1 -p $pg_port -k /tmp -c max_connections=200 -c fsync=off" start >/dev/null
fi
if ! "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U wield -d postgres -tAc "select 1 from pg_database where datname='wield'" | grep -q 1; then
	"$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U wield -d postgres -qc "create database wield"
fi
export WIELD_TEST_POSTGRES_URL="postgres://wield@127.0.0.1:$pg_port/wield?sslmode=disable"
