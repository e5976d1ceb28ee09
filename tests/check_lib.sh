# Sourced by the shell tests that install and build things (package_test.sh, game_test.sh): a
# scratch folder removed at exit, and the ok / bad / quiet helpers their checks are written in.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
ok() { echo "ok: $*"; }
bad() { echo "FAILED: $*"; failures=$((failures + 1)); }
# Runs a command, its output kept in $tmp/out and shown only when it fails.
quiet() { "$@" >"$tmp/out" 2>&1 || { cat "$tmp/out"; return 1; }; }
