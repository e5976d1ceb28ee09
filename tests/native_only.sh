#!/usr/bin/env bash
# tests/native_only.sh CORE_LIB PROGRAM...: the core library references no Lua symbol, and the
# programs that embed native leaves alone (linked with thicket_core only) run without liblua.
set -u
core=$1
shift
bad=0
if nm --undefined-only "$core" | grep -E ' (lua|luaL)_[A-Za-z_]+$' | head -5 | grep -q .; then
  echo "error: $core references Lua:"
  nm --undefined-only "$core" | grep -E ' (lua|luaL)_' | sort -u | head -5
  bad=1
fi
for program in "$@"; do
  if ldd "$program" 2>/dev/null | grep -q liblua; then
    echo "error: $program links liblua, though it embeds native leaves only"
    bad=1
  fi
  if ! "$program" >/dev/null 2>&1; then
    echo "error: $program failed"
    bad=1
  fi
done
echo "native only: core without Lua symbols, $# program(s) run without liblua; $([[ $bad == 0 ]] && echo ok || echo FAILED)"
exit $bad
