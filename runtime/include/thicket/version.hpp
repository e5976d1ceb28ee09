// thicket's version (SPEC 8.1), the one place it is written: CMakeLists.txt reads these lines
// for project(VERSION), `thicket --version` and snapshot headers print the string, and the
// installed package (thicketConfigVersion.cmake, thicket.pc) carries the same numbers.
// Semantic versioning: while MAJOR is 0, a MINOR step may break the API.
//
// Plain macros, so C (thicket.h) can include this file too.
#pragma once

#define THICKET_VERSION_MAJOR 0
#define THICKET_VERSION_MINOR 3
#define THICKET_VERSION_PATCH 0
// A literal (for string concatenation); CMake stops if it disagrees with the numbers above.
#define THICKET_VERSION_STRING "0.3.0"

#ifdef __cplusplus
namespace thicket {
// The version of the headers the program was compiled with, e.g. "0.3.0".
constexpr const char* version() { return THICKET_VERSION_STRING; }
}  // namespace thicket
#endif
