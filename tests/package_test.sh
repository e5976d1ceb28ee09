#!/usr/bin/env bash
# tests/package_test.sh BUILD_DIR [SHARED_BUILD_DIR]: the library as a package (SPEC 8.1), used
# the way a game would use it. Installs BUILD_DIR into a fresh prefix, then:
#   - the layout, and one version everywhere: version.hpp, thicket --version (built and
#     installed), thicketConfigVersion.cmake, pkg-config --modversion;
#   - tests/consumer/cmake (find_package(thicket 0.3) + thicket::thicket, a Lua leaf) configures,
#     builds and runs, in place and again after the prefix is moved (relocatable); so does
#     tests/consumer/cmake_c, the C program below in a C-only CMake project;
#   - tests/consumer/pkgconfig, a C program on the C API, builds with pkg-config alone and runs;
#   - tests/consumer/toonew (find_package(thicket 99)) fails to configure, and a missing
#     dependency (no lua5.4.pc) stops with the Debian package to install.
# SHARED_BUILD_DIR, a build configured with -DBUILD_SHARED_LIBS=ON that made the library
# (ninja thicket_lib): libthicket.so exports the public API and hides the internals (RuntimeImpl,
# Engine, ...), the consumers link against it and run, and so do the examples, which use the
# public headers alone (examples/cpp, docs/examples/cpp, examples/c; the C one's output is
# checked).
# The installs and consumer builds live in a temporary directory, removed at the end.
# shellcheck disable=SC2015  # ok and bad always succeed: `check && ok || bad` is if-then-else here
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
shared=${2:+$(cd "$2" && pwd)}
consumer=$here/tests/consumer
brain=$consumer/data/counter.yaml
# shellcheck source=tests/check_lib.sh
source "$here/tests/check_lib.sh"  # $tmp, ok, bad, quiet

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# configure_consumer SOURCE BUILD PREFIX [cmake args...]
configure_consumer() {
  local source=$1 dir=$2 prefix=$3
  shift 3
  cmake -S "$source" -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" "$@"
}
# The CMake consumers against PREFIX, built in DIR and run: C++, and C in a C-only project.
cmake_consumer() {
  local prefix=$1 dir=$2 what=$3
  if quiet configure_consumer "$consumer/cmake" "$dir" "$prefix" && quiet cmake --build "$dir" &&
    quiet "$dir/consumer" "$brain"; then
    ok "CMake consumer ($what): $(tail -1 "$tmp/out")"
  else
    bad "CMake consumer ($what)"
  fi
  if quiet configure_consumer "$consumer/cmake_c" "$dir/c" "$prefix" && quiet cmake --build "$dir/c" &&
    quiet "$dir/c/consumer_c" "$brain"; then
    ok "CMake C consumer ($what): $(tail -1 "$tmp/out")"
  else
    bad "CMake C consumer ($what)"
  fi
}
# The C consumer against PREFIX through pkg-config alone, compiled as C.
pkgconfig_consumer() {
  local prefix=$1 what=$2
  local cflags libs
  if ! cflags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags thicket) ||
    ! libs=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --libs thicket); then
    bad "pkg-config thicket ($what)"
    return
  fi
  # shellcheck disable=SC2086  # the flags are words
  if quiet cc -std=c99 -Wall -Wextra -Werror -pedantic $cflags "$consumer/pkgconfig/consumer.c" $libs \
    -o "$tmp/c_consumer" && quiet env LD_LIBRARY_PATH="$prefix/lib" "$tmp/c_consumer" "$brain"; then
    ok "pkg-config C consumer ($what): $(tail -1 "$tmp/out")"
  else
    bad "pkg-config C consumer ($what): cc \$(pkg-config --cflags thicket) consumer.c \$(pkg-config --libs thicket)"
  fi
}

want=$(sed -n 's/^#define THICKET_VERSION_STRING "\(.*\)"$/\1/p' "$here/runtime/include/thicket/version.hpp")
[[ $want =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] && ok "version.hpp says $want" || bad "version.hpp's THICKET_VERSION_STRING: '$want'"
major_minor=${want%.*}

# ---- The static package (BUILD_DIR) ----
prefix=$tmp/p
if ! quiet cmake --install "$build" --prefix "$prefix"; then
  bad "cmake --install $build"
  exit 1
fi
for file in include/thicket/runtime.hpp include/thicket/version.hpp include/thicket/export.hpp \
  lib/libthicket.a lib/libthicket_lua.a lib/cmake/thicket/thicketConfig.cmake \
  lib/cmake/thicket/thicketConfigVersion.cmake lib/cmake/thicket/thicketTargets.cmake \
  lib/pkgconfig/thicket.pc bin/thicket; do
  [[ -f $prefix/$file ]] || bad "the install has no $file"
done
# Every public header is installed, the C API's thicket.h among them.
for header in "$here"/runtime/include/thicket/*; do
  cmp -s "$header" "$prefix/include/thicket/${header##*/}" || bad "include/thicket/${header##*/} is not installed as it is"
done
ok "installed layout ($(cd "$prefix" && find . -type f | wc -l) files)"

[[ $("$build/thicket" --version) == "thicket $want" ]] && ok "thicket --version: $want" || bad "thicket --version: $("$build/thicket" --version)"
[[ $("$prefix/bin/thicket" --version) == "thicket $want" ]] && ok "installed thicket --version: $want" ||
  bad "installed thicket --version: $("$prefix/bin/thicket" --version)"
package_version=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$prefix/lib/cmake/thicket/thicketConfigVersion.cmake")
[[ $package_version == "$want" ]] && ok "thicketConfigVersion.cmake: $want" || bad "thicketConfigVersion.cmake says '$package_version'"
pc_version=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --modversion thicket)
[[ $pc_version == "$want" ]] && ok "pkg-config --modversion thicket: $want" || bad "pkg-config --modversion thicket: '$pc_version'"

cmake_consumer "$prefix" "$tmp/consumer" "static"
pkgconfig_consumer "$prefix" "static"

# find_package(thicket 99): a version the package does not claim to be compatible with.
if configure_consumer "$consumer/toonew" "$tmp/toonew" "$prefix" >"$tmp/out" 2>&1; then
  bad "find_package(thicket 99) configured"
elif grep -q "version: $want" "$tmp/out"; then
  ok "find_package(thicket 99) fails to configure (the package is $want)"
else
  cat "$tmp/out"
  bad "find_package(thicket 99) failed, but not for its version"
fi
# find_package(thicket $major_minor.0) is what the consumer asks; a newer minor must not match (0.x semver).
next_minor="${want%%.*}.$((${major_minor#*.} + 1))"
sed "s/find_package(thicket 99 REQUIRED)/find_package(thicket $next_minor REQUIRED)/" \
  "$consumer/toonew/CMakeLists.txt" >"$tmp/CMakeLists.txt"
mkdir -p "$tmp/next" && mv "$tmp/CMakeLists.txt" "$tmp/next/"
configure_consumer "$tmp/next" "$tmp/next/build" "$prefix" >/dev/null 2>&1 &&
  bad "find_package(thicket $next_minor) accepted $want" || ok "find_package(thicket $next_minor) refuses $want"

# A missing dependency: no pkg-config file for Lua, as without liblua5.4-dev.
mkdir -p "$tmp/no_pc"
if PKG_CONFIG_LIBDIR=$tmp/no_pc configure_consumer "$consumer/cmake" "$tmp/no_lua" "$prefix" >"$tmp/out" 2>&1; then
  bad "the consumer configured without Lua 5.4"
elif grep -q "thicket needs Lua 5.4" "$tmp/out" && grep -q "liblua5.4-dev" "$tmp/out"; then
  ok "without Lua 5.4: $(grep -o 'thicket needs Lua.*' "$tmp/out" | head -1) ..."
else
  cat "$tmp/out"
  bad "without Lua 5.4 the message does not say what to install"
fi

# Relocatable: the same tree moved elsewhere still works.
mv "$prefix" "$tmp/moved"
cmake_consumer "$tmp/moved" "$tmp/consumer_moved" "prefix moved"
pkgconfig_consumer "$tmp/moved" "prefix moved"

# ---- The shared library (SHARED_BUILD_DIR) ----
if [[ -n $shared ]]; then
  prefix=$tmp/s
  if ! quiet cmake --install "$shared" --prefix "$prefix" --component library; then
    bad "cmake --install $shared --component library"
  else
    so=$(find "$prefix/lib" -name 'libthicket.so.*.*.*' | head -1)
    if [[ -z $so ]]; then
      bad "no libthicket.so in the shared install"
    else
      nm -D --defined-only -C "$so" >"$tmp/exported"
      grep -q ' thicket::Runtime::Runtime(' "$tmp/exported" && ok "${so##*/} exports thicket::Runtime" ||
        bad "${so##*/} does not export thicket::Runtime"
      internal=$(grep -E ' thicket::(RuntimeImpl|Engine|LuaHost|ScriptHost|StringTable)\b' "$tmp/exported" | head -3)
      [[ -z $internal ]] && ok "${so##*/} hides RuntimeImpl, Engine, LuaHost, StringTable" ||
        bad "${so##*/} exports internals: $internal"
      ok "${so##*/} exports $(wc -l <"$tmp/exported") symbols"
    fi
    cmake_consumer "$prefix" "$tmp/consumer_shared" "shared"
    pkgconfig_consumer "$prefix" "shared"
    # The examples use the public headers alone: each links against libthicket.so, so the API
    # they use is exported (THICKET_API, and the C API's calls).
    linked=0 examples=0
    pc_flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs thicket)
    for example in "$here"/examples/cpp/*.cpp "$here"/docs/examples/cpp/*.cpp "$here"/examples/c/*.c; do
      [[ -f $example ]] || continue
      examples=$((examples + 1))
      compiler=(c++ -std=c++20)
      [[ $example == *.c ]] && compiler=(cc -std=c99)
      # shellcheck disable=SC2086
      if quiet "${compiler[@]}" -O0 "$example" $pc_flags -o "$tmp/example"; then
        linked=$((linked + 1))
      else
        bad "${example#"$here"/} does not link against libthicket.so"
      fi
    done
    ok "$linked of $examples examples (examples/cpp, docs/examples/cpp, examples/c) link against libthicket.so"
    # The C example prints what the guide shows, through the shared library too.
    if [[ -f $here/examples/c/embed.c && -f $here/tests/c_api/embed.expected ]]; then
      # shellcheck disable=SC2086
      if quiet cc -std=c99 -O0 "$here/examples/c/embed.c" $pc_flags -o "$tmp/embed_c" &&
        LD_LIBRARY_PATH=$prefix/lib "$tmp/embed_c" >"$tmp/embed.out" 2>&1 &&
        diff -q "$here/tests/c_api/embed.expected" "$tmp/embed.out" >/dev/null; then
        ok "examples/c/embed.c on libthicket.so prints tests/c_api/embed.expected"
      else
        bad "examples/c/embed.c on libthicket.so: $(diff "$here/tests/c_api/embed.expected" "$tmp/embed.out" | head -5)"
      fi
    fi
  fi
fi

if [[ $failures == 0 ]]; then
  echo "package: ok"
else
  echo "package: $failures FAILED"
  exit 1
fi
