/* The second unit of ju_dwarf_incomplete_first: the same typedef, of the
 * struct defined. */
struct two_unit_probe {
    int a;
    long b;
};
typedef struct two_unit_probe two_unit_probe_t;

two_unit_probe_t two_unit_probe_instance;
