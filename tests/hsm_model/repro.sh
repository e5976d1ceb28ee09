#!/bin/sh
# Runs the engine on each minimal reproducing brain under repro/ and compares its standard
# output with expected.stdout (what SPEC 4.1 demands, as the model reads it; model.py is
# checked against it too). Usage: tests/hsm_model/repro.sh THICKET_BINARY
# Exits non-zero if the engine (or the model) disagrees on any of them.
set -u
if [ $# -lt 1 ]; then
  echo "usage: $0 THICKET_BINARY" >&2
  exit 64
fi
thicket=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
fail=0
tmp=$(mktemp -d)
for d in "$here"/repro/*/; do
  name=$(basename "$d")
  ticks=$(sed -n 's/.*--ticks \([0-9]*\).*/\1/p' "$d/cmd")
  (cd "$d" && "$thicket" $(cat cmd) 2>/dev/null) > "$tmp/engine" || true
  python3 "$here/model.py" "$d/brain.yaml" --ticks "$ticks" > "$tmp/model"
  if ! cmp -s "$tmp/model" "$d/expected.stdout"; then
    echo "MODEL DIFFERS: $name"; diff "$d/expected.stdout" "$tmp/model"; fail=1
  fi
  if cmp -s "$tmp/engine" "$d/expected.stdout"; then
    echo "ok      $name"
  else
    echo "ENGINE DIFFERS: $name (expected -> engine)"; diff "$d/expected.stdout" "$tmp/engine"; fail=1
  fi
done
rm -rf "$tmp"
exit $fail
