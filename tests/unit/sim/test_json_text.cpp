// JSON strings as records, traces and series write them: escapes, and any bytes made valid
// UTF-8 (a script's text may hold any bytes; `thicket view` and other readers must take it).
#include <doctest/doctest.h>

#include <string>

#include "sim/json_text.hpp"

using thicket::json_string;

TEST_SUITE("sim") {

TEST_CASE("json strings: escapes, UTF-8 kept, bytes that are not UTF-8 replaced") {
  CHECK(json_string("guard") == "\"guard\"");
  CHECK(json_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(json_string("l1\nl2\r\t") == "\"l1\\nl2\\r\\t\"");
  CHECK(json_string(std::string("\0\x01\x1f", 3)) == "\"\\u0000\\u0001\\u001f\"");
  // Well-formed sequences of 2, 3 and 4 bytes pass as they are.
  CHECK(json_string("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") == "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"");
  // Each byte outside a well-formed sequence becomes U+FFFD.
  CHECK(json_string("\xFF") == "\"\\ufffd\"");
  CHECK(json_string("a\x80z") == "\"a\\ufffdz\"");                    // a stray continuation byte
  CHECK(json_string("\xC3") == "\"\\ufffd\"");                         // cut short at the end
  CHECK(json_string("\xC3(") == "\"\\ufffd(\"");                       // cut short by another byte
  CHECK(json_string("\xC0\xAF") == "\"\\ufffd\\ufffd\"");              // overlong
  CHECK(json_string("\xED\xA0\x80") == "\"\\ufffd\\ufffd\\ufffd\"");  // a surrogate
  CHECK(json_string("\xF4\x90\x80\x80") == "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");  // past U+10FFFF
  CHECK(json_string("\xF5") == "\"\\ufffd\"");
  CHECK(json_string(std::string("\xFF\0\n\"", 4)) == "\"\\ufffd\\u0000\\n\\\"\"");  // the fuzzed blackboard value
}

TEST_CASE("json strings: the first byte that is not UTF-8") {
  using thicket::first_invalid_utf8;
  CHECK(first_invalid_utf8("") == std::string_view::npos);
  CHECK(first_invalid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") == std::string_view::npos);
  CHECK(first_invalid_utf8("a\xFFz") == 1);
  CHECK(first_invalid_utf8("ab\xC3") == 2);
  CHECK(first_invalid_utf8("\xC3\xA9\xC0\xAF") == 2);
  CHECK(first_invalid_utf8("x\xED\xA0\x80") == 1);
}

}  // TEST_SUITE
