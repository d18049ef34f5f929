"""`python -m jitunwind`: set up gdb and lldb for an installed libjitunwind.

  python -m jitunwind install-debugger-hooks [--user | --system [--force]] [--remove]
  python -m jitunwind gdb-path     # the line for a gdb init file
  python -m jitunwind lldb-path    # the line for ~/.lldbinit
  python -m jitunwind --version
"""

import argparse
import sys

from . import hooks


def _version():
    from . import _ffi
    try:
        lib = _ffi.load_library()
        return "jitunwind %s (%s)" % (lib.jitunwind_version_string().decode(), lib.jitunwind_loaded_from)
    except (OSError, AttributeError) as exc:
        return "jitunwind: library not loadable: %s" % exc


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m jitunwind",
                                     description="Set up gdb and lldb for libjitunwind.")
    parser.add_argument("--version", action="store_true", help="print the library's version and path")
    sub = parser.add_subparsers(dest="command")
    inst = sub.add_parser("install-debugger-hooks",
                          help="write init-file hooks that load the plugins (idempotent)")
    scope = inst.add_mutually_exclusive_group()
    scope.add_argument("--user", dest="scope", action="store_const", const="user",
                       help="the home init file gdb reads (~/.config/gdb/gdbinit if it "
                            "exists, else ~/.gdbinit) and ~/.lldbinit (the default)")
    scope.add_argument("--system", dest="scope", action="store_const", const="system",
                       help="%s/%s (every gdb on this machine)" % (hooks.SYSTEM_GDB_DIR,
                                                                  hooks.SYSTEM_GDB_FILE))
    inst.add_argument("--remove", action="store_true", help="take the hooks out again")
    inst.add_argument("--force", action="store_true",
                      help="--system even when others than root can change the files it loads "
                           "(with a warning)")
    inst.add_argument("--gdbinit-dir", default=hooks.SYSTEM_GDB_DIR, help=argparse.SUPPRESS)
    sub.add_parser("gdb-path", help="print the line that loads the gdb plugin")
    sub.add_parser("lldb-path", help="print the line that loads the lldb plugin")
    args = parser.parse_args(argv)
    try:
        if args.version:
            print(_version())
            return 0
        if args.command == "install-debugger-hooks":
            lines, refused = hooks.install(args.scope or "user", args.remove, args.gdbinit_dir,
                                           args.force)
            for line in lines:
                print(line)
            for why in refused:
                print("jitunwind: %s" % why, file=sys.stderr)
            return 1 if refused else 0
        if args.command == "gdb-path":
            print(hooks.gdb_line())
            return 0
        if args.command == "lldb-path":
            print(hooks.lldb_line())
            return 0
    except (OSError, hooks.Refused) as exc:
        print("jitunwind: %s" % exc, file=sys.stderr)
        return 1
    parser.print_usage(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
