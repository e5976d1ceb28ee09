/* Using a runtime after thicket_runtime_free is undefined behaviour (thicket.h). Built and run
** only under the sanitizers (cmake/c_api.cmake), where AddressSanitizer must report it as a
** heap-use-after-free: the test passes on that report, whatever the exit code. */
#include <stdio.h>

#include "thicket/thicket.h"

int main(void) {
  thicket_runtime *rt = thicket_runtime_new();
  if (!rt) return 1;
  thicket_runtime_free(rt);
  printf("%lld\n", (long long)thicket_agent_count(rt)); /* the use after free */
  return 0;
}
