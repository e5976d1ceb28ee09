# The C API (runtime/include/thicket/thicket.h, bindings/c/c_api.cpp): its test, written in C99
# and compiled as C, and the C embedding example of the guide (examples/c/embed.c), run as a test.
# Included from CMakeLists.txt inside if(THICKET_TESTS).
enable_language(C)

add_executable(test_c_api ${CMAKE_SOURCE_DIR}/tests/c_api/test_c_api.c)
set_target_properties(test_c_api PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
# The header must be plain C99: no extensions, no warnings.
target_compile_options(test_c_api PRIVATE -pedantic-errors -Werror)
target_link_libraries(test_c_api PRIVATE ${THICKET_WITH_LUA} m)
add_test(NAME c_api COMMAND test_c_api ${CMAKE_SOURCE_DIR}/tests/c_api)

# The guide's C program: native leaves only, so the core alone (no Lua) is linked.
add_executable(embed_c ${CMAKE_SOURCE_DIR}/examples/c/embed.c)
set_target_properties(embed_c PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_compile_options(embed_c PRIVATE -pedantic-errors -Werror)
target_link_libraries(embed_c PRIVATE thicket_core)
# Its output is the one the guide shows (tests/c_api/embed.expected).
add_test(NAME c_api_example COMMAND sh -c "out=$(\"$1\") || exit 1; printf '%s\\n' \"$out\" | diff -u \"$2\" -" sh $<TARGET_FILE:embed_c>
  ${CMAKE_SOURCE_DIR}/tests/c_api/embed.expected)

# Using a runtime after thicket_runtime_free is undefined behaviour; under the sanitizers it
# must at least be caught, not pass silently (tests/c_api/use_after_free.c).
if(THICKET_SANITIZE)
  add_executable(c_api_use_after_free ${CMAKE_SOURCE_DIR}/tests/c_api/use_after_free.c)
  set_target_properties(c_api_use_after_free PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  target_link_libraries(c_api_use_after_free PRIVATE thicket_core)
  add_test(NAME c_api_use_after_free COMMAND c_api_use_after_free)
  set_tests_properties(c_api_use_after_free PROPERTIES PASS_REGULAR_EXPRESSION "heap-use-after-free")
endif()
