// "Did you mean" suggestions for near-miss names.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace thicket {

// Edit distance (insert, delete, substitute, swap of neighbours), case-insensitive.
size_t edit_distance(std::string_view a, std::string_view b);

// The closest candidate when it is close enough to be a likely typo, else "". Words longer than
// kMaxSuggested bytes get none (names are short; a script may hand over megabytes).
inline constexpr size_t kMaxSuggested = 128;
std::string closest_name(std::string_view word, const std::vector<std::string>& candidates);

// Bounds the did-you-mean work of one load (a brain file with what it imports, a scenario): a
// file of 20,000 states each naming an unknown one compared every name with every state, a
// time that grows with the square of the file (70 s). Within the scope, once `comparisons`
// candidate names have been looked at, later unknown names get no suggestion (their errors are
// said all the same). Scopes nest: the outermost one's budget holds. Outside every scope there is
// no bound (a single question has a single list).
inline constexpr size_t kSuggestComparisons = 2'000'000;
class SuggestBudget {
 public:
  explicit SuggestBudget(size_t comparisons = kSuggestComparisons);
  ~SuggestBudget();
  SuggestBudget(const SuggestBudget&) = delete;
  SuggestBudget& operator=(const SuggestBudget&) = delete;

 private:
  bool outermost_;
};

// "; did you mean 'x'?" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

// For text YAML read as one word because a ':' in it has no space after it (`action:Patrol`,
// `{x:1}`): " ('x:1' is one text to YAML: a ':' starts a value only when a space follows it;
// write 'x: 1')", else "".
std::string colon_hint(std::string_view text);
// The same for a type name: also other languages' names of thicket's types (int, float,
// double, bool, str, text, list, dict), when the type they mean is one of `types`.
std::string did_you_mean_type(std::string_view word, const std::vector<std::string>& types);

// Text as a message quotes it: whole when at most `max` bytes, else its first bytes (not
// cutting a UTF-8 sequence) and "... (N bytes)", so that a huge value makes a short message.
std::string clipped(std::string_view text, size_t max = 80);
// How many characters text holds, as an editor counts a column: its bytes that are not UTF-8
// continuation bytes (10xxxxxx), so an 'é' is one and a stray byte is one.
size_t utf8_characters(std::string_view text);
// `at` moved back to where the UTF-8 character it falls inside begins (at itself when it starts
// one, or is past the end): where text may be cut without splitting a sequence.
size_t utf8_boundary(std::string_view text, size_t at);
// A name as a one-line message shows it: clipped, its control characters written as escapes
// (\n, \t, \0, \x01), so a name with a line break cannot split the message or hide in it; a
// byte of no well-formed UTF-8 sequence as \xFF (a report stays UTF-8 text).
std::string shown_name(std::string_view name, size_t max = 200);
// A script's text in a message (a Lua error's): its line breaks and tabs kept, every other
// control character (an escape sequence's ESC, a carriage return, DEL) written as \xNN, so a
// mod's text cannot drive the terminal a report is printed on or overwrite a line of it; a byte
// of no well-formed UTF-8 sequence as \xFF too.
std::string without_controls(std::string_view text);
// A message as the first line of a report: each of its lines after the first indented by
// `indent` spaces (a line's leading tab, as Lua's "\n\tno file ...", replaced by them), so that
// error("a\nb") cannot pass for a report of its own (a report's first line starts with
// "error:" or "warning:", every other line of it with spaces).
std::string indented_lines(std::string_view text, size_t indent);

// The names of the files beside `path` (in its folder) whose names end with one of
// `extensions` (".yaml"), sorted; at most 1000: candidates for a file name's did-you-mean.
std::vector<std::string> files_beside(const std::string& path, const std::vector<std::string>& extensions);

// A size as a message gives it: "512 MiB", "256 KiB", "1.5 MiB", "300 bytes" (a cap under 1 MiB
// said "0 MiB").
std::string byte_size(size_t bytes);

// "a, b, c" — candidates joined for "allowed: ..." lists; past kMaxJoinedNames, "a, b, ...
// (4001 in all)": a file of 4,000 trees each naming an unknown one wrote every name in every
// error (16 million names).
inline constexpr size_t kMaxJoinedNames = 40;
std::string join_names(const std::vector<std::string>& names);

// " (it may be in a.lua, b.lua or c.lua, which failed to load: see the errors there)", or "" for
// no files: what an unknown name says when files that might define it did not load.
std::string maybe_in_failed(const std::vector<std::string>& files);

}  // namespace thicket
