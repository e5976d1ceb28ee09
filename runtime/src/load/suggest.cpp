#include "suggest.hpp"
#include "json_text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

namespace thicket {

namespace {
// The characters of UTF-8 text (a byte that starts no sequence counts as one), ASCII letters in
// lower case, into `out`: an edit is one character, so 'Oké' is one edit from 'Ok', not two.
void characters(std::string_view text, std::u32string& out) {
  out.clear();
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
    char32_t cp = len == 1 ? c : c & (0x7F >> len);
    size_t k = 1;
    for (; k < len && i + k < text.size() && (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80; ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    if (k < len) cp = c, k = 1;  // a cut sequence: its first byte alone
    out.push_back(cp < 0x80 ? static_cast<char32_t>(std::tolower(static_cast<int>(cp))) : cp);
    i += k;
  }
}
std::u32string characters(std::string_view text) {
  std::u32string out;
  characters(text, out);
  return out;
}

// The edit distance of two character strings, with three rows of the table kept by the caller
// (the swap of neighbours looks two rows back), so that comparing a word with many names
// allocates once.
struct DistanceRows {
  std::vector<size_t> two_up, up, row;
};
size_t distance(const std::u32string& a, const std::u32string& b, DistanceRows& r) {
  const size_t n = a.size(), m = b.size();
  r.two_up.assign(m + 1, 0);
  r.up.resize(m + 1);
  r.row.assign(m + 1, 0);
  for (size_t j = 0; j <= m; ++j) r.up[j] = j;
  // (ASCII letters are in lower case: characters() made them so)
  for (size_t i = 1; i <= n; ++i) {
    r.row[0] = i;
    for (size_t j = 1; j <= m; ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      r.row[j] = std::min({r.up[j] + 1, r.row[j - 1] + 1, r.up[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        r.row[j] = std::min(r.row[j], r.two_up[j - 2] + 1);
    }
    std::swap(r.two_up, r.up);
    std::swap(r.up, r.row);
  }
  return r.up[m];
}

// Comparisons left to the did-you-means of the SuggestBudget in force on this thread.
thread_local size_t t_comparisons_left = SIZE_MAX;
thread_local bool t_budget_open = false;
}  // namespace

size_t edit_distance(std::string_view a_text, std::string_view b_text) {
  DistanceRows rows;
  return distance(characters(a_text), characters(b_text), rows);
}

SuggestBudget::SuggestBudget(size_t comparisons) : outermost_(!t_budget_open) {
  if (!outermost_) return;
  t_budget_open = true;
  t_comparisons_left = comparisons;
}

SuggestBudget::~SuggestBudget() {
  if (!outermost_) return;
  t_budget_open = false;
  t_comparisons_left = SIZE_MAX;
}

std::string closest_name(std::string_view word, const std::vector<std::string>& candidates) {
  // An empty word is no typo of anything (every one-letter name is one edit from it).
  if (word.empty() || word.size() > kMaxSuggested) return {};
  // Over the load's budget: no suggestion (the error is said all the same).
  if (candidates.size() > t_comparisons_left) {
    t_comparisons_left = 0;
    return {};
  }
  t_comparisons_left -= candidates.size();
  thread_local std::u32string w, c32;
  thread_local DistanceRows rows;
  characters(word, w);
  std::string best;
  size_t best_d = static_cast<size_t>(-1);
  // Of names equally close, the first that starts as the word does (a first letter is seldom
  // the typo: 'Rn' is 'Run', not 'In'), else the first.
  bool best_same_start = false;
  for (const auto& c : candidates) {
    characters(c, c32);
    const bool same_start = !c32.empty() && c32[0] == w[0];
    // The lengths' difference is a floor of the distance: a name that cannot come closer than
    // the best so far (or only as close, without the better start) is not compared (the same
    // answer, sooner).
    const size_t floor = c32.size() > w.size() ? c32.size() - w.size() : w.size() - c32.size();
    if (floor > best_d || (floor == best_d && (best_same_start || !same_start))) continue;
    size_t dist = distance(w, c32, rows);
    if (dist < best_d || (dist == best_d && same_start && !best_same_start)) {
      best_d = dist;
      best = c;
      best_same_start = same_start;
    }
  }
  // A typo is a small share of the word: 1 edit for short names, about a third for long.
  // A name with no character in common (a one-letter word against a one-letter name: '3' for
  // 'a') is a replacement, not a typo.
  const size_t longer = std::max(w.size(), characters(best).size());
  size_t limit = std::max<size_t>(1, longer / 3);
  if (best.empty() || best_d > limit || best_d >= longer || best == word) return {};
  return best;
}

std::string colon_hint(std::string_view t) {
  const size_t colon = t.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 >= t.size() || t.find(": ") != std::string_view::npos)
    return "";
  return " ('" + std::string(t) + "' is one text to YAML: a ':' starts a value only when a space follows it; write '" +
         std::string(t.substr(0, colon)) + ": " + std::string(t.substr(colon + 1)) + "')";
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best = closest_name(word, candidates);
  return best.empty() ? std::string() : "; did you mean '" + best + "'?";
}

std::string did_you_mean_type(std::string_view word, const std::vector<std::string>& types) {
  if (std::string near = did_you_mean(word, types); !near.empty()) return near;
  static const std::vector<std::pair<const char*, const char*>> other_names = {
      {"int", "integer"},  {"long", "integer"}, {"float", "number"}, {"double", "number"}, {"real", "number"},
      {"bool", "boolean"}, {"str", "string"},   {"text", "string"},  {"list", "table"},    {"dict", "table"},
      {"map", "table"},    {"array", "table"}};
  for (const auto& [name, ours] : other_names)
    if (edit_distance(word, name) == 0 && std::find(types.begin(), types.end(), ours) != types.end())
      return std::string("; did you mean '") + ours + "'?";
  return "";
}

size_t utf8_characters(std::string_view text) {
  size_t characters = 0;
  for (const char c : text) characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return characters;
}

size_t utf8_boundary(std::string_view text, size_t at) {
  if (at >= text.size()) return at;
  while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return at;
}

std::string clipped(std::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  const size_t cut = utf8_boundary(text, max);
  return std::string(text.substr(0, cut)) + "... (" + std::to_string(text.size()) + " bytes)";
}

namespace {
// Text with its control characters written as escapes: on one line (a name), line breaks,
// tabs, carriage returns and NULs by their C escapes; else (a script's message) line breaks
// and tabs as they are; every other control character, and every byte of no well-formed UTF-8
// sequence (a script's text may hold any bytes), as \xNN.
std::string escaped(std::string_view text, bool one_line) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) {  // a byte of no well-formed UTF-8 sequence as \xNN too: a report stays UTF-8 text
      if (const size_t n = utf8_sequence(text, i); n > 0) {
        out.append(text.substr(i, n));
        i += n - 1;
      } else {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02X", u);
        out += hex;
      }
    } else if (!one_line && (c == '\n' || c == '\t')) out += c;
    else if (one_line && c == '\0') out += "\\0";  // as the C API writes a NUL in its texts
    else if (one_line && c == '\n') out += "\\n";
    else if (one_line && c == '\t') out += "\\t";
    else if (one_line && c == '\r') out += "\\r";
    else if (u < 0x20 || u == 0x7F) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", u);
      out += hex;
    } else {
      out += c;
    }
  }
  return out;
}
}  // namespace

std::string shown_name(std::string_view name, size_t max) { return escaped(clipped(name, max), true); }

std::string without_controls(std::string_view text) { return escaped(text, false); }

std::string indented_lines(std::string_view text, size_t indent) {
  std::string out;
  out.reserve(text.size());
  for (size_t k = 0; k < text.size(); ++k) {
    out += text[k];
    if (text[k] != '\n') continue;
    out.append(indent, ' ');
    if (k + 1 < text.size() && text[k + 1] == '\t') ++k;
  }
  return out;
}

std::string byte_size(size_t bytes) {
  auto in = [&](unsigned shift, const char* unit) {
    const size_t whole = bytes >> shift, rest = bytes - (whole << shift);
    if (rest == 0) return std::to_string(whole) + " " + unit;
    char text[48];
    std::snprintf(text, sizeof text, "%.1f %s", static_cast<double>(bytes) / static_cast<double>(size_t(1) << shift), unit);
    return std::string(text);
  };
  if (bytes >= (size_t(1) << 20)) return in(20, "MiB");
  if (bytes >= (size_t(1) << 10)) return in(10, "KiB");
  return std::to_string(bytes) + " bytes";
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i == kMaxJoinedNames && names.size() > kMaxJoinedNames + 1) {
      out += ", ... (" + std::to_string(names.size()) + " in all)";
      break;
    }
    if (!out.empty()) out += ", ";
    out += names[i];
  }
  return out;
}

std::string maybe_in_failed(const std::vector<std::string>& files) {
  if (files.empty()) return {};
  std::string in = files.back();
  if (files.size() > 1) in = join_names(std::vector<std::string>(files.begin(), files.end() - 1)) + " or " + in;
  return " (it may be in " + in + ", which failed to load: see the error" + (files.size() > 1 ? "s" : "") + " there)";
}

std::vector<std::string> files_beside(const std::string& path, const std::vector<std::string>& extensions) {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  std::error_code ec;
  const fs::path dir = fs::path(path).parent_path();
  for (fs::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end && names.size() < 1000; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    for (const std::string& extension : extensions)
      if (name.size() > extension.size() && name.compare(name.size() - extension.size(), extension.size(), extension) == 0) {
        names.push_back(name);
        break;
      }
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace thicket
