"""The rate of impossible stacks `record --nonblocking` and `stack --python`
may still show (docs/cli.md, `--nonblocking`): the running-chain check
reads a thread that goes on running, so a chain that changed and changed
back between its copies can pass it. Tests of a target whose chain changes
all the time allow that many, counted over every stack they got, and no
more."""

ONE_STACK_IN = 2000


def allowed(stacks):
    """How many of `stacks` stacks may be impossible: one for each
    ONE_STACK_IN begun (one among fewer: a single torn chain that passed is
    within the rate, whatever the count)."""
    return (stacks + ONE_STACK_IN - 1) // ONE_STACK_IN
