#!/usr/bin/env bash
# Installs the Debian packages the build needs, if any is missing.
set -euo pipefail
# libvalijson-dev and nlohmann-json3-dev: JSON Schema checking (runtime/src/load/schema.cpp); both are
# header-only. Debian's libvalijson-dev depends on the dev packages of every JSON library it has
# an adapter for (Qt 5 base, Poco, jsoncpp, rapidjson, picojson): a large first install.
# clang, libfuzzer-14-dev and libclang-rt-14-dev: the fuzz targets (tools/fuzz.sh) and test.sh's
# ASan and TSan trees, built with clang; clang's sanitizer runtimes are in libclang-rt-14-dev,
# which clang only recommends (and recommends are not installed here). lld links those trees
# (several times faster than ld.bfd on their large sanitized executables).
# librecast-dev: Recast builds navmeshes and Detour queries them (runtime/src/nav/nav_mesh.cpp).
# libtinyxml2-dev: BehaviorTree.CPP XML for thicket import/export (runtime/cli/import_btcpp.cpp).
# locales: a unit test reads brains under a German C locale (de_DE, made with localedef from
# its sources), as a game that calls setlocale(LC_ALL, "") may have it.
# zlib1g-dev: gzip records (--record FILE.jsonl.gz). libcpp-httplib-dev: the live monitor (--serve).
# libopenmpi-dev and openmpi-bin: MPI runs (-DTHICKET_MPI=ON, mpirun), built and tested by test.sh.
# chromium: the viewer's tests run in headless Chromium (driven by playwright-core from npm).
# libsdl2-dev, libsdl2-ttf-dev, libsdl2-image-dev, fonts-dejavu-core: thicket-game (examples/game)
# draws with SDL2, writes text with SDL2_ttf in DejaVu Sans Mono, saves screenshots with SDL2_image.
# pybind11-dev, python3-dev, python3-numpy, python3-pandas, python3-matplotlib, python3-pytest: the
# Python module (bindings/python), its DataFrames and plots, and its tests.
packages=(build-essential cmake ninja-build pkg-config liblua5.4-dev libyaml-cpp-dev libvalijson-dev nlohmann-json3-dev doctest-dev clang libfuzzer-14-dev libclang-rt-14-dev lld librecast-dev libtinyxml2-dev locales
          zlib1g-dev libcpp-httplib-dev chromium libopenmpi-dev openmpi-bin python3
          libsdl2-dev libsdl2-ttf-dev libsdl2-image-dev fonts-dejavu-core
          pybind11-dev python3-dev python3-numpy python3-pandas python3-matplotlib python3-pytest
          procps)  # pkill: test.sh ends its background job's tests when a build fails
# Node.js and npm build the viewer's page (its charting library comes from the npm registry).
# A machine that has them already (e.g. from NodeSource) keeps its own.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "installing: ${missing[*]}"
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The viewer's npm packages (uPlot, embedded into the binary; playwright-core for the browser
# tests), exactly as the lockfile says, when they are missing or older than the lockfile.
viewer="$(dirname "$0")/../viewer"
if [[ ! -d "$viewer/node_modules" || "$viewer/package-lock.json" -nt "$viewer/node_modules" ]]; then
  (cd "$viewer" && npm ci --no-audit --no-fund --loglevel=error)
  touch "$viewer/node_modules"
fi
