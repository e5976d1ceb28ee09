#include "sent_events.hpp"

#include <cctype>

namespace thicket {

std::vector<SentEvent> self_sent_events(std::string_view lua) {
  std::vector<SentEvent> out;
  int line = 1;
  size_t line_start = 0;
  bool comment = false;  // after `--` on this line
  for (size_t i = 0; i < lua.size(); ++i) {
    const char c = lua[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
      comment = false;
      continue;
    }
    if (comment) continue;
    if (c == '-' && i + 1 < lua.size() && lua[i + 1] == '-') {
      comment = true;
      continue;
    }
    if (c == '"' || c == '\'') {  // a string literal elsewhere: skipped whole, so ":send(" inside one is no call
      size_t j = i + 1;
      while (j < lua.size() && lua[j] != c && lua[j] != '\n') j += lua[j] == '\\' ? 2 : 1;
      i = j < lua.size() && lua[j] == '\n' ? j - 1 : j;
      continue;
    }
    if (c != ':' || lua.substr(i + 1, 4) != "send") continue;
    size_t j = i + 5;
    if (j < lua.size() && (std::isalnum(static_cast<unsigned char>(lua[j])) || lua[j] == '_')) continue;  // :sender(
    while (j < lua.size() && (lua[j] == ' ' || lua[j] == '\t')) ++j;
    bool paren = j < lua.size() && lua[j] == '(';
    if (paren) {
      ++j;
      while (j < lua.size() && (lua[j] == ' ' || lua[j] == '\t')) ++j;
    }
    if (j >= lua.size() || (lua[j] != '"' && lua[j] != '\'')) continue;
    const char quote = lua[j];
    const size_t open = j++;
    const size_t start = j;
    while (j < lua.size() && lua[j] != quote && lua[j] != '\\' && lua[j] != '\n') ++j;
    if (j >= lua.size() || lua[j] != quote) continue;  // an escape or an unclosed text: not read
    const std::string name(lua.substr(start, j - start));
    size_t k = j + 1;
    while (k < lua.size() && (lua[k] == ' ' || lua[k] == '\t')) ++k;
    if (paren && (k >= lua.size() || lua[k] != ')')) continue;  // more arguments, or an expression
    if (!name.empty()) out.push_back({name, line, static_cast<int>(open - line_start) + 1});
    i = j;
  }
  return out;
}

}  // namespace thicket
