/* The third unit of ju_dwarf_incomplete_first: DWARF without a struct,
 * union or typedef (a function, a variable, base types), as an LTO build's
 * `<artificial>` units are: check_dwarf checks the type index does not
 * walk it. */
int no_types_counter;

int no_types_next(int step)
{
    no_types_counter += step;
    return no_types_counter;
}
