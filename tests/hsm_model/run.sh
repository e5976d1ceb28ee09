#!/bin/sh
# Compare the thicket CLI with the HSM reference model (model.py) on random brains.
# Usage: tests/hsm_model/run.sh THICKET_BINARY [COUNT] [SEED]
# Exits non-zero on any mismatch (the first few are printed with brain, outputs and diff).
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 THICKET_BINARY [COUNT] [SEED]" >&2
  exit 64
fi
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/compare.py" "$1" --count "${2:-200}" --seed "${3:-1}"
