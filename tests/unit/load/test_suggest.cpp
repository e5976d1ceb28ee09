// "Did you mean" and quoted values in messages: near misses are suggested, huge texts (a script
// may hand over megabytes) get no suggestion and are quoted short.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sent_events.hpp"
#include "suggest.hpp"

using namespace thicket;

TEST_SUITE("load") {

TEST_CASE("suggestions: near misses, and none for a huge word") {
  const std::vector<std::string> statuses = {"success", "failure", "running"};
  CHECK(closest_name("succes", statuses) == "success");
  CHECK(closest_name("Runing", statuses) == "running");
  CHECK(closest_name("banana", statuses).empty());
  // "" is no typo of a one-letter name (a reason that returned "" was asked "did you mean '1'?").
  CHECK(closest_name("", {"1", "a"}).empty());
  // Nor is a one-letter word a typo of another one-letter name: nothing is in common ('initial:
  // 3' was "did you mean 'a'?"); a longer name that keeps the letter still is.
  CHECK(closest_name("b", {"1", "a"}).empty());
  CHECK(closest_name("b", {"a", "bc"}) == "bc");
  // Of names equally close, the one that starts as the word does, in either order ('Rn' was
  // "did you mean 'In'?"); a closer name still wins over a better start.
  CHECK(closest_name("Rn", {"In", "Run"}) == "Run");
  CHECK(closest_name("Rn", {"Run", "In"}) == "Run");
  CHECK(closest_name("xun", {"Run", "xunxxx"}) == "Run");
  CHECK(edit_distance("ab", "ba") == 1);  // a swap of neighbours is one edit
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("", "abc") == 3);
  // Characters, not bytes: "é" (two bytes) is one edit, so 'Oké' is a typo of 'Ok' (it was two
  // edits, past a short name's one).
  CHECK(edit_distance("Ok\xC3\xA9", "Ok") == 1);
  CHECK(edit_distance("\xC3\xA9t\xC3\xA9", "\xC3\xA9t\xC3\xA8") == 1);
  CHECK(closest_name("Ok\xC3\xA9", {"Ok", "Cond"}) == "Ok");
  CHECK(edit_distance("a\xC3", "a") == 1);  // a cut sequence: its byte counts as one character
  // 10 MB: answered at once, no suggestion (was one heap row per byte: gigabytes).
  const std::string huge(10'000'000, 's');
  CHECK(closest_name(huge, statuses).empty());
  CHECK(did_you_mean(huge, statuses).empty());
  CHECK(closest_name(std::string(kMaxSuggested + 1, 'x'), {std::string(kMaxSuggested, 'x')}).empty());
  CHECK(closest_name(std::string(kMaxSuggested, 'x'), {std::string(kMaxSuggested - 1, 'x')}) ==
        std::string(kMaxSuggested - 1, 'x'));
}

TEST_CASE("did-you-means of one load are bounded; outside a budget they are not") {
  std::vector<std::string> names;
  for (int i = 0; i < 100; ++i) names.push_back("state" + std::to_string(i));
  CHECK(closest_name("stat7", names) == "state7");
  {
    SuggestBudget budget(250);  // two questions of 100 names, not a third
    CHECK(closest_name("stat1", names) == "state1");
    {
      SuggestBudget inner(1'000'000);  // a scope inside another: the outer budget holds
      CHECK(closest_name("stat2", names) == "state2");
    }
    CHECK(closest_name("stat3", names).empty());
    CHECK(did_you_mean("stat4", names).empty());
  }
  CHECK(closest_name("stat5", names) == "state5");  // the scope is over: no bound again
  // The closest of names of other lengths is found as before (a name whose length alone puts it
  // further than the best so far is skipped, not compared).
  CHECK(closest_name("patrl", {"p", "patrols", "patrol", "pa"}) == "patrol");
  CHECK(closest_name("Oké", {"ok", "okay"}) == "ok");
}

TEST_CASE("join_names: a long list names its first 40 and how many there are") {
  std::vector<std::string> names;
  for (int i = 0; i < 41; ++i) names.push_back("t" + std::to_string(i));
  const std::string all = join_names(names);  // 41: all of them (the count would be longer)
  CHECK(all.find("t40") != std::string::npos);
  CHECK(all.find("in all") == std::string::npos);
  names.push_back("t41");
  const std::string some = join_names(names);
  CHECK(some.find("t39, ... (42 in all)") != std::string::npos);
  CHECK(some.find("t40") == std::string::npos);
  CHECK(join_names({"a", "b"}) == "a, b");
}

TEST_CASE("shown_name: a name's control characters are escapes, so a message stays one line") {
  // (unknown leaf 'Ok<line break>' split the message in two)
  CHECK(shown_name("Ok") == "Ok");
  CHECK(shown_name("Ok\n") == "Ok\\n");
  CHECK(shown_name("a\tb\x01\x7F") == "a\\tb\\x01\\x7F");
  CHECK(shown_name(std::string("L\0x", 3)) == "L\\0x");  // as the C API writes a NUL
  CHECK(shown_name("caf\xC3\xA9") == "caf\xC3\xA9");  // letters past ASCII stay as they are
  CHECK(shown_name(std::string(1000, 'n')).size() < 260);
  // A byte of no well-formed UTF-8 sequence is an escape too (it was written raw: a report that
  // was no UTF-8 text): a stray one, a sequence cut short, an overlong form, a surrogate.
  CHECK(shown_name("bad\xFF\x01") == "bad\\xFF\\x01");
  CHECK(shown_name("a\xC3") == "a\\xC3");
  CHECK(shown_name("\xC0\xAF") == "\\xC0\\xAF");
  CHECK(shown_name("\xED\xA0\x80") == "\\xED\\xA0\\x80");
  CHECK(shown_name("\xF0\x9F\x99\x82") == "\xF0\x9F\x99\x82");  // a four-byte character stays
  CHECK(without_controls("caf\xC3\xA9\xFF\nnext") == "caf\xC3\xA9\\xFF\nnext");
}

TEST_CASE("clipped: short texts whole, long ones cut with their size, never inside a UTF-8 sequence") {
  CHECK(clipped("success") == "success");
  CHECK(clipped(std::string(80, 'a')) == std::string(80, 'a'));
  CHECK(clipped(std::string(81, 'a')) == std::string(80, 'a') + "... (81 bytes)");
  CHECK(clipped(std::string(30'000'000, 's')).size() < 120);
  // "é" is two bytes: a cut at 5 bytes of "aaaaé..." would split it, so it is cut before it.
  CHECK(clipped("aaaa\xC3\xA9xyz", 5) == "aaaa... (9 bytes)");
  CHECK(clipped("aaa\xC3\xA9xyz", 5) == "aaa\xC3\xA9... (8 bytes)");
}

TEST_CASE("byte_size: whole units as such, others to a tenth, never '0 MiB' for a small cap") {
  CHECK(byte_size(size_t(512) << 20) == "512 MiB");
  CHECK(byte_size(size_t(16) << 20) == "16 MiB");
  CHECK(byte_size(size_t(256) << 10) == "256 KiB");
  CHECK(byte_size((size_t(3) << 20) / 2) == "1.5 MiB");
  CHECK(byte_size(1000) == "1000 bytes");
  CHECK(byte_size(0) == "0 bytes");
}

TEST_CASE("did_you_mean_type: near misses, and other languages' names of the types") {
  const std::vector<std::string> bb = {"number", "integer", "boolean", "string", "any"};
  CHECK(did_you_mean_type("nubmer", bb) == "; did you mean 'number'?");
  CHECK(did_you_mean_type("int", bb) == "; did you mean 'integer'?");
  CHECK(did_you_mean_type("float", bb) == "; did you mean 'number'?");
  CHECK(did_you_mean_type("Bool", bb) == "; did you mean 'boolean'?");  // (case-insensitive, as edit_distance)
  CHECK(did_you_mean_type("str", bb) == "; did you mean 'string'?");
  CHECK(did_you_mean_type("dict", bb).empty());  // no table type on a blackboard
  CHECK(did_you_mean_type("dict", {"number", "integer", "string", "boolean", "table"}) == "; did you mean 'table'?");
  CHECK(did_you_mean_type("vector", bb).empty());
}

// The literal event names a Lua leaf file sends its own agent (runtime/src/load/sent_events.cpp),
// which an fsm brain checks at load against the names its states take.
TEST_CASE("sent events: the literal names of :send calls, with their lines and columns; not in comments or texts") {
  const std::vector<SentEvent> got = self_sent_events(
      "function L.A(agent)\n"
      "  agent:send(\"alarm\")\n"              // 2:14
      "  me:send 'calm'  -- a call without parentheses\n"  // 3:11
      "  agent:send(  \"spaced\"  )\n"         // 4:16
      "  -- agent:send(\"commented\")\n"
      "  print(\"agent:send('in a text')\")\n"
      "  agent:send(\"two\", 2)\n"             // more arguments: not read
      "  agent:sender(\"other\")\n"            // another method
      "  agent:send(\"esc\\\"aped\")\n"        // an escape: not read
      "  agent:send(name)\n"                   // no literal
      "  agent:send(\"\")\n"                   // empty: no name
      "  agent:send(\"é\") end\n");            // 12:14, UTF-8 kept
  REQUIRE(got.size() == 4);
  CHECK(got[0].name == "alarm");
  CHECK(got[0].line == 2);
  CHECK(got[0].column == 14);
  CHECK(got[1].name == "calm");
  CHECK(got[1].line == 3);
  CHECK(got[1].column == 11);
  CHECK(got[2].name == "spaced");
  CHECK(got[2].line == 4);
  CHECK(got[2].column == 16);
  CHECK(got[3].name == "é");
  CHECK(got[3].line == 12);
  CHECK(self_sent_events("").empty());
  CHECK(self_sent_events("x:send(\"unclosed").empty());
}

}  // TEST_SUITE
