"""One description per command, and the one parser both debuggers use.

A `Spec` says everything a user sees before the command runs: its name in
each debugger, a one-line summary, the help text, the flags and at most one
positional argument (a count, or one word such as an address). `parse()` turns the text typed after the command into an
`Args`, or raises `UsageError` whose text ends with the usage line."""

import re
import shlex


class UsageError(ValueError):
    pass


class Flag:
    def __init__(self, short, long, dest, help, number=None):
        """`number`: the metavariable of a positive integer the flag takes
        (`--limit N`), or None for a switch."""
        self.short, self.long, self.dest, self.help, self.number = short, long, dest, help, number

    @property
    def names(self):
        return [n for n in (self.short, self.long) if n]

    def usage(self):
        text = "|".join(self.names)
        return "[%s%s]" % (text, " " + self.number if self.number else "")


class Positional:
    """An optional positive integer (a frame count), or with `word=True` one
    word the command interprets itself (an address, an expression without
    spaces, a number from a listing); a word never starts with "-"."""

    def __init__(self, dest, metavar, help, word=False):
        self.dest, self.metavar, self.help, self.word = dest, metavar, help, word


class Spec:
    def __init__(self, name, summary, description, flags=(), positional=None, gdb_name=None,
                 lldb_name=None, category="stack"):
        self.name = name
        self.category = category        # gdb's help class: "stack", "status" or "data"
        self.gdb_name = gdb_name or name
        self.lldb_name = lldb_name or name
        self.summary = summary          # one line, ends with a full stop
        self.description = description  # paragraphs after the usage line
        self.flags = list(flags)
        self.positional = positional

    def usage(self, debugger_name=None):
        parts = [debugger_name or self.name] + [f.usage() for f in self.flags]
        if self.positional:
            parts.append("[%s]" % self.positional.metavar)
        return " ".join(parts)

    def help(self, debugger_name=None):
        """The long help: summary, usage, description, one line per option.
        gdb takes its first line as the summary `apropos` and `help` list."""
        lines = [self.summary, "", "Usage: " + self.usage(debugger_name)]
        if self.description:
            lines += ["", self.description]
        options = [(", ".join(f.names) + (" " + f.number if f.number else ""), f.help)
                   for f in self.flags]
        if self.positional:
            options.append((self.positional.metavar, self.positional.help))
        if options:
            lines.append("")
            width = max(len(o) for o, _ in options)
            lines += ["  %-*s  %s" % (width, o, h) for o, h in options]
        return "\n".join(lines)


class Args:
    def __init__(self, spec):
        for f in spec.flags:
            setattr(self, f.dest, None if f.number else False)
        if spec.positional:
            setattr(self, spec.positional.dest, None)


_POSITIVE = re.compile(r"[1-9][0-9]*")
_NUMBERISH = re.compile(r"[-+]?[0-9][0-9a-zA-Z.+-]*")


def _positive(spec, what, token, debugger_name):
    if not _POSITIVE.fullmatch(token) or len(token) > 9:
        raise UsageError("%s: %s must be a positive whole number below 10^9, not %r\nusage: %s"
                         % (debugger_name or spec.name, what, token, spec.usage(debugger_name)))
    return int(token)


def parse(spec, text, debugger_name=None):
    """The arguments in `text` (what follows the command's name)."""
    name = debugger_name or spec.name

    def error(message):
        return UsageError("%s: %s\nusage: %s" % (name, message, spec.usage(debugger_name)))

    try:
        tokens = shlex.split(text or "")
    except ValueError as exc:  # shlex: "No closing quotation"
        raise error("cannot split the arguments (%s)" % str(exc).lower()) from None
    args = Args(spec)
    by_name = {n: f for f in spec.flags for n in f.names}
    seen_positional = False
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        flag = by_name.get(token)
        if flag is None and "=" in token and token.startswith("--"):
            flag = by_name.get(token.split("=", 1)[0])
            if flag is not None and flag.number:
                tokens.insert(i, token.split("=", 1)[1])
        if flag is not None:
            if flag.number:
                if i >= len(tokens):
                    raise error("%s needs a value (%s)" % (token, flag.number))
                setattr(args, flag.dest, _positive(spec, token, tokens[i], debugger_name))
                i += 1
            else:
                setattr(args, flag.dest, True)
            continue
        word = spec.positional is not None and spec.positional.word
        if token.startswith("-") and (word or not _NUMBERISH.fullmatch(token)):
            raise error("unknown option %r" % token)
        if spec.positional is None:
            raise error("takes no argument %r" % token)
        if seen_positional:
            raise error("unexpected extra argument %r" % token)
        seen_positional = True
        setattr(args, spec.positional.dest, token if word else
                _positive(spec, spec.positional.metavar, token, debugger_name))
    return args
