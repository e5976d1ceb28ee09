// The "C" locale, whatever the process's: '.' is the decimal point of the numbers thicket reads
// and of those its scripts write.
#pragma once

#include <locale.h>

namespace thicket {

// newlocale(LC_ALL_MASK, "C"), made once; null if the C library could not make it.
locale_t c_locale();

// Makes the calling thread's locale "C" for the scope's lifetime when `on`, then gives back the
// one the thread had. Lua writes a number as the thread's LC_NUMERIC says (tostring, `..`,
// string.format, print): under a game's German locale a leaf's tostring(1.5) gave "1,5", where
// a headless run of the same brain (the CLI never sets a locale) gives "1.5". The runtime takes
// one around each call that may run a script (a tick, a tick_all and each of its jobs, a
// despawn, a restore: once a leaf file is loaded, ~7 ns a call; a load and a reload: always;
// a spawn runs none). Whatever else runs on the thread inside such a call runs in "C" too: native leaves,
// the game's callbacks, what an executor runs while it waits for tick_all's jobs.
class CLocaleScope {
 public:
  explicit CLocaleScope(bool on) : outer_(on && c_locale() ? uselocale(c_locale()) : static_cast<locale_t>(nullptr)) {}
  ~CLocaleScope() {
    if (outer_) uselocale(outer_);
  }
  CLocaleScope(const CLocaleScope&) = delete;
  CLocaleScope& operator=(const CLocaleScope&) = delete;

 private:
  locale_t outer_;
};

}  // namespace thicket
