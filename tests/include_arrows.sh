#!/usr/bin/env bash
# tests/include_arrows.sh ROOT: the core (runtime/src, runtime/include) includes nothing from a
# binding (bindings/*) nor Lua's headers; bindings include the core, never the other way.
set -u
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 2
bad=0
binding_headers=$(find bindings -name '*.hpp' -o -name '*.h' | xargs -n1 basename | sort -u)
pattern='#[[:space:]]*include[[:space:]]*[<"](lua\.hpp|lua\.h|lualib\.h|lauxlib\.h|luaconf\.h'
for h in $binding_headers; do pattern="$pattern|([^\">]*/)?${h//./\\.}"; done
pattern="$pattern)[\">]"
if hits=$(grep -rnE "$pattern" runtime/src runtime/include); then
  echo "error: the core includes a binding or Lua header (the arrows run bindings -> core only):"
  echo "$hits"
  bad=1
fi
if grep -rnE '#[[:space:]]*include[[:space:]]*"[^"]*bindings/' runtime/src runtime/include; then
  echo "error: the core names a bindings/ path"
  bad=1
fi
[ $bad = 0 ] && echo "include arrows: core -> bindings: none"
exit $bad
