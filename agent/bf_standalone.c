/* bf_standalone.c — placeholder for standalone mode (issue #4). */
#include "bf_standalone.h"

#include <stdio.h>

volatile int bf_standalone_stop_flag = 0;

int bf_standalone_main(int argc, char **argv)
{
    fprintf(stderr, "bulkfleet-agent run: standalone mode is not built yet; use "
                    "bulkfleet-coordinator run SCENARIO --local-agents 1\n");
    return 2;
}
