# The library as a package (SPEC 8.1): `cmake --install BUILD --prefix P` puts the headers in
# P/include/thicket, the library in P/lib, the CLI in P/bin, the CMake package in
# P/lib/cmake/thicket (find_package(thicket 0.3) + thicket::thicket) and P/lib/pkgconfig/thicket.pc.
# Every installed path is relative to the file that names it, so the prefix can be moved.
#
# What is installed is made from the objects already compiled for thicket_core and thicket_lua
# (nothing is compiled twice):
#   static (default)         libthicket.a (the core, no Lua) and libthicket_lua.a (the Lua
#                            binding, which registers itself with the core from a static
#                            initializer, so it is linked whole: --whole-archive);
#   -DBUILD_SHARED_LIBS=ON   libthicket.so: core and binding, only THICKET_API symbols exported.
# The project's own programs keep linking the static thicket_core / thicket_lua either way.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(THICKET_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/thicket)
set(THICKET_INCLUDE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

if(BUILD_SHARED_LIBS)
  add_library(thicket_lib SHARED $<TARGET_OBJECTS:thicket_core> $<TARGET_OBJECTS:thicket_lua>)
  # 0.x: a minor version may break the ABI, so the soname carries it (libthicket.so.0.3).
  set_target_properties(thicket_lib PROPERTIES OUTPUT_NAME thicket EXPORT_NAME thicket
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  target_link_libraries(thicket_lib PRIVATE yaml-cpp Threads::Threads ZLIB::ZLIB
    ${DETOUR_LIBRARY} ${RECAST_LIBRARY} PkgConfig::LUA)
  # Every symbol the objects need is resolved now, not in the program that loads the library.
  target_link_options(thicket_lib PRIVATE LINKER:--no-undefined)
  target_include_directories(thicket_lib INTERFACE ${THICKET_INCLUDE})
  # The C++ headers are C++20 (std::span, defaulted comparisons): a game's target gets at least
  # that (gcc 12 defaults to C++17) whatever it asks for itself. A C-only project is unaffected.
  target_compile_features(thicket_lib INTERFACE cxx_std_20)
  target_compile_definitions(thicket_lib INTERFACE THICKET_SHARED)
  set(THICKET_INSTALLED_TARGETS thicket_lib)
  set(THICKET_PC_CFLAGS " -DTHICKET_SHARED")
  set(THICKET_PC_LIBS "-lthicket")
else()
  add_library(thicket_lib_core STATIC $<TARGET_OBJECTS:thicket_core>)
  set_target_properties(thicket_lib_core PROPERTIES OUTPUT_NAME thicket EXPORT_NAME core)
  target_include_directories(thicket_lib_core INTERFACE ${THICKET_INCLUDE})
  # The C++ headers are C++20 (std::span, defaulted comparisons): a game's target gets at least
  # that (gcc 12 defaults to C++17) whatever it asks for itself. A C-only project is unaffected.
  target_compile_features(thicket_lib_core INTERFACE cxx_std_20)
  # The dependencies as thicketConfig.cmake finds them (thicket::Recast, thicket::Detour and
  # PkgConfig::THICKET_LUA are made there), and the C++ runtime for programs a C compiler links
  # (a C-only CMake project). Nothing in this build links these targets.
  foreach(dependency yaml-cpp thicket::Detour thicket::Recast ZLIB::ZLIB Threads::Threads stdc++ m)
    target_link_libraries(thicket_lib_core INTERFACE $<INSTALL_INTERFACE:$<LINK_ONLY:${dependency}>>)
  endforeach()
  add_library(thicket_lib_lua STATIC $<TARGET_OBJECTS:thicket_lua>)
  set_target_properties(thicket_lib_lua PROPERTIES OUTPUT_NAME thicket_lua EXPORT_NAME lua)
  target_link_libraries(thicket_lib_lua INTERFACE thicket_lib_core
    $<INSTALL_INTERFACE:$<LINK_ONLY:PkgConfig::THICKET_LUA>>)
  # thicket::thicket: the binding whole (its static initializer gives runtimes their Lua host),
  # then the core.
  add_library(thicket_lib INTERFACE)
  set_target_properties(thicket_lib PROPERTIES EXPORT_NAME thicket)
  # (install(EXPORT) does not rename targets inside $<LINK_LIBRARY>: the installed name is given.)
  target_link_libraries(thicket_lib INTERFACE
    "$<INSTALL_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,thicket::lua>>" thicket_lib_core)
  set(THICKET_INSTALLED_TARGETS thicket_lib thicket_lib_lua thicket_lib_core)
  # thicket.pc: the same for programs built without CMake, C programs included (the C++
  # runtime, libstdc++ and libm, comes last).
  list(TRANSFORM LUA_LIBRARIES PREPEND -l OUTPUT_VARIABLE lua_ldflags)
  string(JOIN " " lua_ldflags ${lua_ldflags})
  set(THICKET_PC_CFLAGS "")
  set(THICKET_PC_LIBS "-Wl,--whole-archive -lthicket_lua -Wl,--no-whole-archive -lthicket ${lua_ldflags} -lyaml-cpp -lDetour -lRecast -lz -lstdc++ -lm -pthread")
endif()

# Out of the way of thicket_core's and thicket_lua's own archives (libthicket_lua.a twice).
set_target_properties(${THICKET_INSTALLED_TARGETS} PROPERTIES
  ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/package LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/package)
install(TARGETS ${THICKET_INSTALLED_TARGETS} EXPORT thicketTargets COMPONENT library
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The whole public face: the C++ headers, version.hpp, export.hpp and the C API's thicket.h.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/runtime/include/thicket DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT library)
# The CLI (thicket run, check, view, ...). `cmake --install BUILD --component library` leaves it
# out, for a build that made the library alone (tests/package_test.sh's shared check).
install(TARGETS thicket RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)

install(EXPORT thicketTargets NAMESPACE thicket:: DESTINATION ${THICKET_CMAKE_DIR} COMPONENT library)
set(THICKET_PACKAGE_SHARED ${BUILD_SHARED_LIBS})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/thicketConfig.cmake.in
  ${CMAKE_BINARY_DIR}/package/thicketConfig.cmake INSTALL_DESTINATION ${THICKET_CMAKE_DIR})
# Semantic versioning: before 1.0 a minor step may break the API, so 0.3 accepts 0.3.x only.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(compatibility SameMinorVersion)
else()
  set(compatibility SameMajorVersion)
endif()
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/thicketConfigVersion.cmake
  COMPATIBILITY ${compatibility})
install(FILES ${CMAKE_BINARY_DIR}/package/thicketConfig.cmake
  ${CMAKE_BINARY_DIR}/package/thicketConfigVersion.cmake DESTINATION ${THICKET_CMAKE_DIR}
  COMPONENT library)

# thicket.pc finds its prefix from its own place (${pcfiledir}).
set(THICKET_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH THICKET_PC_PREFIX /prefix/${THICKET_PC_DIR} /prefix)
string(REGEX REPLACE "/$" "" THICKET_PC_PREFIX "${THICKET_PC_PREFIX}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/thicket.pc.in ${CMAKE_BINARY_DIR}/package/thicket.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/package/thicket.pc DESTINATION ${THICKET_PC_DIR} COMPONENT library)
