// THICKET_API marks the public face of libthicket.so (SPEC 8.1): a build with
// -DBUILD_SHARED_LIBS=ON compiles the library with -fvisibility=hidden, so only what carries
// this mark is exported. THICKET_SHARED is defined when building the shared library and for
// programs that use it (the thicket::thicket target and thicket.pc pass it); for the static
// library the mark is empty, so a program linking it statically exports nothing of thicket.
//
// Plain macros, so C (thicket.h) can include this file too.
#pragma once

#if defined(THICKET_SHARED) && (defined(__GNUC__) || defined(__clang__))
#define THICKET_API __attribute__((visibility("default")))
#else
#define THICKET_API
#endif
