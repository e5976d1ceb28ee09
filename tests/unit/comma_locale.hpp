// A locale whose decimal point is ',' (de_DE), for the tests of numbers under a game's locale.
#pragma once

#include <unistd.h>

#include <clocale>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace thicket_test {

// Sets LC_NUMERIC and LC_COLLATE to de_DE: the system's when it has one compiled, else one made
// with localedef (from Debian's `locales`, which tools/install_deps.sh installs) in a folder of
// its own that LOCPATH names. Returns false when neither can be had.
inline bool comma_locale() {
  if (std::setlocale(LC_NUMERIC, "de_DE.UTF-8") && std::setlocale(LC_COLLATE, "de_DE.UTF-8")) return true;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("thicket_test_locale_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string made = "localedef -i de_DE -f UTF-8 '" + (dir / "de_DE.UTF-8").string() + "' >/dev/null 2>&1";
  const bool have = std::system(made.c_str()) == 0 || std::filesystem::exists(dir / "de_DE.UTF-8");
  const char* was = std::getenv("LOCPATH");
  const std::string locpath = was ? was : "";
  ::setenv("LOCPATH", dir.c_str(), 1);
  const bool ok = have && std::setlocale(LC_NUMERIC, "de_DE.UTF-8") != nullptr &&
                  std::setlocale(LC_COLLATE, "de_DE.UTF-8") != nullptr;
  if (was) ::setenv("LOCPATH", locpath.c_str(), 1);
  else ::unsetenv("LOCPATH");
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);  // (what setlocale loaded stays mapped)
  return ok;
}

// Puts LC_NUMERIC and LC_COLLATE back to "C" when the test ends, however it ends.
struct CLocaleAtEnd {
  CLocaleAtEnd() = default;
  CLocaleAtEnd(const CLocaleAtEnd&) = delete;
  CLocaleAtEnd& operator=(const CLocaleAtEnd&) = delete;
  ~CLocaleAtEnd() {
    std::setlocale(LC_NUMERIC, "C");
    std::setlocale(LC_COLLATE, "C");
  }
};

}  // namespace thicket_test
