# Sourced by the end-to-end scripts (tests/e2e/*_test.sh), whose first argument is the thicket
# binary: thicket (that path, absolute), here (the checkout), dir (a temporary folder, removed
# at exit), the pass / fail counters and ok / bad to count a check (bad prints why).
thicket=$(realpath "$1")
here=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
