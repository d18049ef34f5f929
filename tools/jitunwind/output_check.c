/* Whether what a command wrote reached its file: a full disk, a closed
 * standard output or a reader gone is said in one line and ends the
 * command with CLI_OUTPUT, never a success. */
#include <errno.h>
#include <string.h>

#include "cli.h"

int cli_output_check(FILE *out, const char *what)
{
    int err = errno; /* a write that failed before this flush left its reason */
    if (fflush(out) == 0 && !ferror(out))
        return CLI_OK;
    err = errno ? errno : err ? err : EIO;
    clearerr(out);
    fprintf(stderr, "jitunwind: writing %s failed: %s\n", what, strerror(err));
    return CLI_OUTPUT;
}
