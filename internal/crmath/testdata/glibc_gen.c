/* glibc_gen prints GNU libc's log and exp on chosen arguments as the bits
   of the float64 argument and result, one case a line:

       log ARG RESULT
       exp ARG RESULT

   (16 hex digits each). It is a test generator for internal/crmath, not
   part of the build; glibc.txt says how it was compiled and run. Arguments
   come from a fixed xorshift generator, so a run is reproducible; N (the
   first argument, default 300) is the number of random cases of each
   kind; then come log(a/b) and exp(log(a/b)) for every 1 <= a <= b <= 40,
   values trec_eval's map and bpref take, and last eight arguments on which
   glibc 2.36 is one ulp from the correctly rounded value (found in a run
   of ./glibc_gen 200000). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

/* uniform in [0, 1) */
static double unif(void) { return (double)(next() >> 11) * 0x1p-53; }

static uint64_t bits(double x) {
    uint64_t b;
    memcpy(&b, &x, 8);
    return b;
}

static double fromBits(uint64_t b) {
    double x;
    memcpy(&x, &b, 8);
    return x;
}

/* volatile so that gcc calls libm instead of folding constants */
static void logCase(volatile double x) {
    double y = log(x);
    printf("log %016llx %016llx\n", (unsigned long long)bits(x), (unsigned long long)bits(y));
}

static void expCase(volatile double x) {
    double y = exp(x);
    printf("exp %016llx %016llx\n", (unsigned long long)bits(x), (unsigned long long)bits(y));
}

/* a value as trec_eval's map and bpref give: a ratio of small counts, or
   a sum of them, floored at 0.00001 */
static double ratio(void) {
    long b = 1 + (long)(next() % 64);
    long a = (long)(next() % (uint64_t)(b + 1));
    double v = (double)a / (double)b;
    return v < 0.00001 ? 0.00001 : v;
}

/* k/2^m, k odd, 0 < k < 2^m, m from 1 to 16 */
static double dyadic(void) {
    int m = 1 + (int)(next() % 16);
    uint64_t k = (next() % (1ULL << (m - 1))) * 2 + 1;
    return ldexp((double)k, -m);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 300;
    double lo = log(0.00001);
    for (long i = 0; i < n; i++) /* log, uniform in [1e-5, 1] */
        logCase(0.00001 + unif() * (1 - 0.00001));
    for (long i = 0; i < n; i++) /* log, log-uniform in [1e-5, 1] */
        logCase(exp(unif() * lo));
    for (long i = 0; i < n; i++) /* log of k/2^m */
        logCase(dyadic());
    for (long i = 0; i < n; i++) /* log of ratios of small counts */
        logCase(ratio());
    for (long i = 0; i < n; i++) /* log, any positive finite float64 */
        logCase(fromBits(1 + next() % 0x7fefffffffffffffULL));
    for (long i = 0; i < n; i++) /* exp, uniform in [log(1e-5), 0] */
        expCase(unif() * lo);
    for (long i = 0; i < n; i++) /* exp(log(v)): one query's geometric mean */
        expCase(log(i % 2 ? dyadic() : ratio()));
    for (long i = 0; i < n; i++) { /* exp of the mean of 2 to 9 logs */
        int q = 2 + (int)(next() % 8);
        double s = 0;
        for (int j = 0; j < q; j++)
            s += log(next() % 2 ? dyadic() : ratio());
        expCase(s / q);
    }
    for (long i = 0; i < n; i++) /* exp, uniform in [-746, 710] */
        expCase(-746 + unif() * 1456);
    for (long i = 0; i < n; i++) /* exp, tiny arguments */
        expCase((unif() - 0.5) * ldexp(1, -(int)(next() % 60)));
    for (long b = 1; b <= 40; b++)
        for (long a = 1; a <= b; a++) {
            logCase((double)a / (double)b);
            expCase(log((double)a / (double)b));
        }
    static const uint64_t hardLog[] = {0x3fe568305ac39e2eULL, 0x3fe35f106cc39345ULL,
                                       0x3fe95e16d885751eULL, 0x3fd40228b4254431ULL};
    static const uint64_t hardExp[] = {0xbff9d9f43faadc59ULL, 0xc00f97f806b817a0ULL,
                                       0xc024b316c49d4e57ULL, 0xc0219a505154c708ULL};
    for (int i = 0; i < 4; i++)
        logCase(fromBits(hardLog[i]));
    for (int i = 0; i < 4; i++)
        expCase(fromBits(hardExp[i]));
    return 0;
}
