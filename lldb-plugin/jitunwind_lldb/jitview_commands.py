"""The JIT developer commands (jitunwind.ui.jit_specs) as LLDB commands,
run against LldbSession like every shared command. LLDB command names
cannot hold a space: `info` is one command whose first word picks
`info jit-executors` or `info jit-executor`."""

from jitunwind.ui.session import invoke as session_invoke
from jitunwind.ui import jit_specs

from .commands import LldbSession, command_class

_RUNS = dict((spec.name, run) for spec, run in jit_specs.COMMANDS)
_INFO = {"jit-executors": jit_specs.JIT_EXECUTORS, "jit-executor": jit_specs.JIT_EXECUTOR}


class Info:
    """`info jit-executors` and `info jit-executor`."""

    def __init__(self, debugger, internal_dict):
        pass

    def get_short_help(self):
        return "CPython JIT executors: `info jit-executors`, `info jit-executor ADDR|N`."

    def get_long_help(self):
        return "\n\n".join(s.help(s.lldb_name) for s in _INFO.values())

    def __call__(self, debugger, command, exe_ctx, result):
        session = LldbSession(exe_ctx, result)
        word, _, rest = (command or "").strip().partition(" ")
        spec = _INFO.get(word)
        if spec is None:
            session.write("info: unknown subcommand %r\nusage: %s | %s" % (
                word, jit_specs.JIT_EXECUTORS.usage(), jit_specs.JIT_EXECUTOR.usage()))
            return
        session_invoke(spec, _RUNS[spec.name], session, rest)


CLASSES = [command_class(spec, run) for spec, run in jit_specs.COMMANDS
           if spec not in _INFO.values()]
globals().update((cls.__name__, cls) for cls in CLASSES)


def register(debugger, package):
    for name, cls in [("info", Info)] + [(cls.NAME, cls) for cls in CLASSES]:
        debugger.HandleCommand("command script add -o -c %s.jitview_commands.%s %s"
                               % (package, cls.__name__, name))
