// How many of a test's random cases to take: all of them in the Release build, two in five in
// the sanitizer builds, which run them about ten times slower (ASan and UBSan watch the code
// the cases reach, and the first two fifths reach the same code as the rest).
#pragma once

constexpr int sanitizer_sample(int cases) {
#if defined(THICKET_UNDER_SANITIZER)
  return cases * 2 / 5;
#else
  return cases;
#endif
}
