#!/bin/bash
# SIGINT, SIGTERM and SIGHUP stop a simulation at the next event boundary:
# one error line, exit 130, the run recorded (exit code 130, statistics so
# far); a second signal exits at once.
. "$(dirname "$0")/lib_cli.bash"

db_row() {  # db_row DB -> "exit_code metrics_rows" of the last run
    python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute("select id, exit_code from runs order by id desc limit 1").fetchone(); n=c.execute("select count(*) from metrics where run_id=?", (r[0],)).fetchone()[0]; print(r[1], n)' "$1"
}

# Waits until the run has started simulating (its database exists), then
# a little more, and sends the signal(s).
interrupt() {   # interrupt SIGNAL COUNT DB -- CMD...
    local sig=$1 count=$2 db=$3; shift 4
    "$@" >"$OUT" 2>"$ERR" &
    local pid=$! i
    for i in $(seq 200); do [ -e "$db" ] && break; sleep 0.1; done
    sleep 1
    for i in $(seq "$count"); do kill -"$sig" "$pid"; sleep 0.05; done
    wait "$pid"
    RC=$?
}

for sig in INT TERM HUP; do
    interrupt "$sig" 1 "$TMP/$sig.db" -- "$MGSIM" run mm --mode timing --quiet --db "$TMP/$sig.db"
    [ "$RC" -eq 130 ] || fail "SIG$sig: exit $RC, expected 130"
    expect_one_error_line
    expect_in "$ERR" "interrupted by SIG$sig at t="
    read -r code rows < <(db_row "$TMP/$sig.db")
    [ "$code" = 130 ] || fail "SIG$sig: run recorded with exit $code"
    [ "$rows" -gt 100 ] || fail "SIG$sig: only $rows statistics recorded"
done

# A second signal does not wait for the simulation to stop.
interrupt INT 2 "$TMP/twice.db" -- "$MGSIM" run mm --mode timing --quiet --db "$TMP/twice.db"
[ "$RC" -eq 130 ] || fail "second SIGINT: exit $RC, expected 130"
grep -q "interrupted" "$ERR" || fail "second SIGINT: no message"
echo ok
