/*
 * The C side of `make bench-c`: CCMP-128 through libwlansec's C API on the frames that
 * crates/wlansec-c/examples/rust_api_bench.rs gives the Rust API (same generator, same
 * seed, same sizes, same call counts). Prints one line per workload:
 * `<workload> <octets> <median ns per frame>`; tests/c/bench_overhead.py alternates the
 * two programs and sets their medians side by side.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_SET */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <wlansec.h>

enum { BURST = 32, REPS = 15, HEADER = 24, AAD = 22, MAX_LEN = 1500 };

static const size_t SIZES[] = {64, 512, 1500};

static uint64_t rng_state = 48;

/* splitmix64, as the Rust side. */
static uint64_t next_random(void)
{
        uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
}

static void fill(uint8_t *out, size_t len)
{
        for (size_t i = 0; i < len; i++)
                out[i] = (uint8_t)next_random();
}

static double now_ns(void)
{
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

/* Calls per repetition: about 0.4 M frame-octets, at least one call. */
static size_t calls_for(size_t len, size_t frames)
{
        size_t calls = 400000 / (len * frames);
        return calls ? calls : 1;
}

static void report(const char *workload, size_t len, double *reps)
{
        qsort(reps, REPS, sizeof(*reps), by_value);
        printf("%s %zu %.2f\n", workload, len, reps[REPS / 2]);
}

static void check(wlansec_status status)
{
        if (status != WLANSEC_OK) {
                fprintf(stderr, "bench_overhead: %s\n", wlansec_status_message((int)status));
                exit(1);
        }
}

/* The caller on the second CPU this process may use, off the per-core engine's worker (the
 * engine pins it to the first), as the Rust side does. Left to the scheduler, the caller at
 * times ran on the worker's core, where a round trip of 32 frames at 512 octets takes 138-140
 * ns a frame against 82-84 on cores apart. */
static void pin_off_the_worker(void)
{
        cpu_set_t allowed, second;
        int seen = 0;

        if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
                return;
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
                if (CPU_ISSET(cpu, &allowed) && ++seen == 2) {
                        CPU_ZERO(&second);
                        CPU_SET(cpu, &second);
                        sched_setaffinity(0, sizeof(second), &second);
                        return;
                }
        }
}

int main(void)
{
        static uint8_t data[BURST][MAX_LEN], mpdu[HEADER + MAX_LEN], buf[HEADER + MAX_LEN + 16];
        uint8_t tk[16], nonce[BURST][13], aad[BURST][AAD], mic[BURST][8];
        wlansec_job jobs[BURST];
        wlansec_key *key = NULL;
        wlansec_burst *burst = NULL;
        wlansec_engine *engine = NULL;
        wlansec_packet *packets[BURST];
        double reps[REPS];

        fill(tk, sizeof(tk));
        check(wlansec_key_new(WLANSEC_SUITE_CCMP128, tk, sizeof(tk), &key));
        check(wlansec_burst_new(BURST, &burst));
        check(wlansec_engine_new(1, 0, &engine));
        check(wlansec_engine_add_station(engine, 0, 1, tk, sizeof(tk)));
        pin_off_the_worker();
        for (size_t i = 0; i < BURST; i++)
                check(wlansec_packet_new(HEADER + MAX_LEN, &packets[i]));
        for (size_t s = 0; s < sizeof(SIZES) / sizeof(SIZES[0]); s++) {
                size_t len = SIZES[s], calls;

                for (size_t i = 0; i < BURST; i++) {
                        fill(nonce[i], 13);
                        fill(aad[i], AAD);
                        fill(data[i], len);
                        jobs[i] = (wlansec_job){.key = key, .aad = aad[i], .aad_len = AAD, .data = data[i],
                                                .data_len = len, .mic = mic[i]};
                        memcpy(jobs[i].nonce, nonce[i], 13);
                }
                /* A QoS-less data frame, ToDS: the MAC header, then `len` octets of body. */
                fill(mpdu, HEADER + len);
                mpdu[0] = 0x08;
                mpdu[1] = 0x01;

                calls = calls_for(len, 1);
                for (int r = 0; r < REPS; r++) {
                        double start = now_ns();
                        for (size_t c = 0; c < calls; c++)
                                check(wlansec_seal(key, nonce[0], 13, aad[0], AAD, data[0], len, mic[0], 8));
                        reps[r] = (now_ns() - start) / (double)calls;
                }
                report("seal", len, reps);

                for (int r = 0; r < REPS; r++) {
                        double start = now_ns();
                        for (size_t c = 0; c < calls; c++) {
                                memcpy(buf, mpdu, HEADER + len);
                                check(wlansec_protect(key, buf, sizeof(buf), HEADER + len, c + 1, 0, NULL));
                        }
                        reps[r] = (now_ns() - start) / (double)calls;
                }
                report("protect", len, reps);

                calls = calls_for(len, BURST);
                for (int r = 0; r < REPS; r++) {
                        double start = now_ns();
                        for (size_t c = 0; c < calls; c++)
                                check(wlansec_burst_seal(burst, jobs, BURST));
                        reps[r] = (now_ns() - start) / (double)(calls * BURST);
                }
                report("burst32", len, reps);

                /* The per-core engine, one worker: 32 packets filled, submitted and polled back. */
                for (int r = 0; r < REPS; r++) {
                        double start = now_ns();
                        for (size_t c = 0; c < calls; c++) {
                                size_t accepted = 0, polled = 0;

                                for (size_t i = 0; i < BURST; i++)
                                        check(wlansec_packet_set(packets[i], 0, i, mpdu, HEADER + len));
                                check(wlansec_engine_submit(engine, WLANSEC_PROTECT, packets, BURST, &accepted));
                                while (polled < BURST) {
                                        wlansec_engine_wait(engine, BURST - polled, 1000000);
                                        polled += wlansec_engine_poll(engine, packets + polled, BURST - polled);
                                }
                        }
                        reps[r] = (now_ns() - start) / (double)(calls * BURST);
                }
                report("engine32", len, reps);
        }
        for (size_t i = 0; i < BURST; i++)
                wlansec_packet_free(packets[i]);
        wlansec_engine_free(engine);
        wlansec_burst_free(burst);
        wlansec_key_free(key);
        return 0;
}
