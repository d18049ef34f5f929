/* A short-lived native process for the --perf --all tests: it spins in
 * known functions, two calls below main, for about 10 ms of its own CPU
 * time (CPU time, so that a busy machine still sees it run that long),
 * then exits: a few samples at 250 Hz, and gone before the recorder could
 * open it through /proc. With `--wait` it first blocks until a byte (or
 * the end) comes on its standard input: started before a recording, it
 * spins only once the recording runs. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static uint64_t native_brief_inner(uint64_t x)
{
    for (uint32_t i = 0; i < 100000; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

__attribute__((noinline)) static uint64_t native_brief_outer(uint64_t x)
{
    double end = cpu_seconds() + 0.01;
    while (cpu_seconds() < end) {
        x = native_brief_inner(x);
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

int main(int argc, char **argv)
{
    char c;
    if (argc > 1 && strcmp(argv[1], "--wait") == 0 && read(0, &c, 1) < 0)
        return 2;
    return (int)(native_brief_outer(1) & 1);
}
