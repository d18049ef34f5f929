/* The first unit of ju_dwarf_incomplete_first: `two_unit_probe_t` names a
 * struct this unit only declares. A type lookup that took the first
 * typedef of that name would find no members; check_dwarf asks for them.
 * `only_declared_probe` is declared here and defined nowhere: its name is
 * in the file, so a lookup must walk every unit to say it is not there.
 * Built with -g, listed before complete_second.c so its unit comes first. */
typedef struct two_unit_probe two_unit_probe_t;
struct only_declared_probe;

two_unit_probe_t *two_unit_probe_pointer;
struct only_declared_probe *only_declared_pointer;
