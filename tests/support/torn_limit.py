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


# With --mark-frames a check that stops at the marker trusts the frames
# beyond the marked one, and on CPython 3.15.2 the marker is sometimes
# not moved when the marked frame returns (seen: marker and sequence
# unchanged across the return of the marked innermost frame), so a call
# made again at the same address from another line of its caller passes
# (docs/cli.md, `--mark-frames`, the risk left). On cli.torn_lines' target
# at 2000 Hz that paired the caller's line from the other path in 0.1-2.5%
# of the leaf's stacks, idle or loaded; none without markers.
MARKED_ONE_STACK_IN = 20


def allowed_marked(stacks):
    """allowed() for a run with --mark-frames, on a target that calls one
    chain again from another line of its outermost caller all the time."""
    return (stacks + MARKED_ONE_STACK_IN - 1) // MARKED_ONE_STACK_IN
