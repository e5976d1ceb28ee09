// Reading a command's own arguments (view, import, export): an option's value may follow it
// (`-o OUT`) or be joined to it with '=' (`--out=OUT`), as `run` and `path` take them.
#pragma once
#include <optional>
#include <string>

namespace thicket::cli {

// An argument split at its first '=' when it is a long option ("--out=x" -> "--out", "x");
// `joined` holds the value then, and is empty otherwise.
inline std::string option_name(const std::string& arg, std::optional<std::string>& joined) {
  joined.reset();
  const std::size_t eq = arg.find('=');
  if (arg.rfind("--", 0) != 0 || eq == std::string::npos) return arg;
  joined = arg.substr(eq + 1);
  return arg.substr(0, eq);
}

// The option's value: the joined one, else the next argument (advancing i); nullopt when there
// is none or it is empty (an empty value is none: '-o ""' wrote to standard output).
inline std::optional<std::string> option_value(const std::optional<std::string>& joined, int& i, int argc,
                                               char** argv) {
  if (joined) return joined->empty() ? std::nullopt : joined;
  if (i + 1 >= argc || !*argv[i + 1]) return std::nullopt;
  return std::string(argv[++i]);
}

}  // namespace thicket::cli
