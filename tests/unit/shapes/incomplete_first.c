/* The first unit of ju_dwarf_incomplete_first: `two_unit_probe_t` names a
 * struct this unit only declares. A type lookup that took the first
 * typedef of that name would find no members; check_dwarf asks for them.
 * Built with -g, listed before complete_second.c so its unit comes first. */
typedef struct two_unit_probe two_unit_probe_t;

two_unit_probe_t *two_unit_probe_pointer;
