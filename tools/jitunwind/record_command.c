/* `jitunwind record` and `jitunwind top`: the sampler. */
#include "cli.h"

int cli_record_command(const struct cli_options *opt)
{
    (void)opt;
    fprintf(stderr, "jitunwind: %s is not built yet\n", opt->command);
    return CLI_USAGE;
}
