// The one doctest main of the unit test binary; every tests/unit/**/test_*.cpp links into it.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
