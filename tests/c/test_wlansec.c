/*
 * libwlansec from C: the published CCMP-128/256 and GCMP-128/256 vectors (tests/vectors, as
 * vectors.h from tests/c/vectors.py) through every entry point, refusals of bad arguments,
 * the burst queue, and (with WLANSEC_TEST_IPSEC_MB) random frames against intel-ipsec-mb's
 * AES-CCM and AES-GCM. Built and run by tests/c/run.sh, against the shared and the static
 * library.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wlansec.h>

#include "vectors.h"

#ifdef WLANSEC_TEST_IPSEC_MB
#include <intel-ipsec-mb.h>
#endif

static int failures;

#define CHECK(cond, ...)                                                                     \
        do {                                                                                 \
                if (!(cond)) {                                                               \
                        failures++;                                                          \
                        fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);      \
                        fprintf(stderr, __VA_ARGS__);                                        \
                        fputc('\n', stderr);                                                 \
                }                                                                            \
        } while (0)

#define CHECK_STATUS(call, want, ...)                                                        \
        do {                                                                                 \
                wlansec_status got_ = (call);                                                \
                CHECK(got_ == (want), "%s (got %s) ", wlansec_status_message((int)got_),     \
                      wlansec_status_message((int)(want)));                                  \
                if (got_ != (want)) {                                                        \
                        fprintf(stderr, "  at: " __VA_ARGS__);                               \
                        fputc('\n', stderr);                                                 \
                }                                                                            \
        } while (0)

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t next_random(void)
{
        /* xorshift64*: deterministic frames, the same on every run. */
        rng_state ^= rng_state >> 12;
        rng_state ^= rng_state << 25;
        rng_state ^= rng_state >> 27;
        return rng_state * 0x2545f4914f6cdd1dULL;
}

static void fill_random(uint8_t *out, size_t len)
{
        for (size_t i = 0; i < len; i++)
                out[i] = (uint8_t)next_random();
}

static size_t random_below(size_t bound)
{
        return (size_t)(next_random() % bound);
}

static wlansec_key *new_key(unsigned suite, const uint8_t *tk, size_t tk_len)
{
        wlansec_key *key = NULL;
        CHECK_STATUS(wlansec_key_new(suite, tk, tk_len, &key), WLANSEC_OK, "key of suite %u", suite);
        return key;
}

/* Each vector's MPDU through wlansec_protect / wlansec_unprotect, a tampered copy refused
 * and left as it came; AES-CCM/GCM alone through wlansec_seal / wlansec_open; CCMP-128's
 * through a burst as well. */
static void test_published_vectors(wlansec_burst *burst)
{
        size_t count = sizeof(vectors) / sizeof(vectors[0]);

        CHECK(count == 18, "vectors.h holds %zu vectors", count);
        for (size_t i = 0; i < count; i++) {
                const struct vector *v = &vectors[i];
                wlansec_key *key = new_key(v->suite, v->tk, v->tk_len);
                uint8_t buf[512], mic[16], data[512];
                size_t len = 0;
                uint64_t pn = 0;
                uint8_t key_id = 9;

                if (key == NULL)
                        continue;
                if (v->check_mpdu) {
                        memcpy(buf, v->plain, v->plain_len);
                        CHECK_STATUS(wlansec_protect(key, buf, sizeof(buf), v->plain_len, v->pn, v->key_id, &len),
                                     WLANSEC_OK, "%s", v->id);
                        CHECK(len == v->encrypted_len && memcmp(buf, v->encrypted, len) == 0, "%s: MPDU", v->id);
                        CHECK_STATUS(wlansec_unprotect(key, buf, len, &len, &pn, &key_id), WLANSEC_OK, "%s", v->id);
                        CHECK(len == v->plain_len && pn == v->pn && key_id == v->key_id, "%s: opened", v->id);
                        CHECK(buf[1] == (v->plain[1] & ~0x40) && memcmp(buf + 2, v->plain + 2, len - 2) == 0,
                              "%s: plaintext (Protected bit cleared)", v->id);

                        memcpy(buf, v->encrypted, v->encrypted_len);
                        buf[v->encrypted_len - 1] ^= 0x01;
                        CHECK_STATUS(wlansec_unprotect(key, buf, v->encrypted_len, NULL, NULL, NULL),
                                     WLANSEC_ERR_MIC_FAILURE, "%s tampered", v->id);
                        CHECK(memcmp(buf, v->encrypted, v->encrypted_len - 1) == 0, "%s: refused frame kept", v->id);
                }
                if (v->nonce_len > 0) {
                        memcpy(data, v->body, v->body_len);
                        CHECK_STATUS(wlansec_seal(key, v->nonce, v->nonce_len, v->aad, v->aad_len, data, v->body_len,
                                                  mic, v->mic_len),
                                     WLANSEC_OK, "%s", v->id);
                        CHECK(memcmp(data, v->ciphertext, v->body_len) == 0, "%s: ciphertext", v->id);
                        CHECK(memcmp(mic, v->mic, v->mic_len) == 0, "%s: MIC", v->id);
                        CHECK_STATUS(wlansec_open(key, v->nonce, v->nonce_len, v->aad, v->aad_len, data, v->body_len,
                                                  v->mic, v->mic_len),
                                     WLANSEC_OK, "%s", v->id);
                        CHECK(memcmp(data, v->body, v->body_len) == 0, "%s: opened", v->id);
                }
                if (v->nonce_len > 0 && v->suite == WLANSEC_SUITE_CCMP128) {
                        wlansec_job job = {.key = key, .aad = v->aad, .aad_len = v->aad_len, .data = data,
                                           .data_len = v->body_len, .mic = mic};

                        memcpy(job.nonce, v->nonce, WLANSEC_CCMP_NONCE_LEN);
                        memcpy(data, v->body, v->body_len);
                        CHECK_STATUS(wlansec_burst_seal(burst, &job, 1), WLANSEC_OK, "%s", v->id);
                        CHECK(job.status == WLANSEC_OK && memcmp(data, v->ciphertext, v->body_len) == 0 &&
                                      memcmp(mic, v->mic, 8) == 0,
                              "%s: burst", v->id);
                }
                wlansec_key_free(key);
        }
}

/* Bad arguments give their status codes, never a crash. */
static void test_refusals(wlansec_burst *burst)
{
        static const uint8_t tk[32] = {1, 2, 3};
        static const uint8_t nonce[13] = {0};
        static const uint8_t aad[22] = {0x08, 0x40};
        uint8_t buf[64] = {0x08, 0x40}, mic[16] = {0}, data[16] = {0};
        wlansec_key *key = (wlansec_key *)&buf; /* must be overwritten with NULL on failure */
        wlansec_key *gcmp = new_key(WLANSEC_SUITE_GCMP128, tk, 16);
        wlansec_key *ccmp = new_key(WLANSEC_SUITE_CCMP128, tk, 16);
        wlansec_burst *none = (wlansec_burst *)&buf;
        size_t accepted = 99;

        CHECK_STATUS(wlansec_key_new(WLANSEC_SUITE_CCMP128, tk, 32, &key), WLANSEC_ERR_KEY_LENGTH, "long TK");
        CHECK(key == NULL, "failed key_new sets *out to NULL");
        CHECK_STATUS(wlansec_key_new(4, tk, 16, &key), WLANSEC_ERR_INVALID_ARGUMENT, "suite 4");
        CHECK_STATUS(wlansec_key_new(WLANSEC_SUITE_GCMP256, NULL, 32, &key), WLANSEC_ERR_NULL_POINTER, "NULL TK");
        CHECK_STATUS(wlansec_key_new(WLANSEC_SUITE_GCMP256, tk, 32, NULL), WLANSEC_ERR_NULL_POINTER, "NULL out");
        CHECK_STATUS(wlansec_key_new_enhanced(3, tk, 16, &key), WLANSEC_ERR_INVALID_ARGUMENT, "N = 3");
        CHECK_STATUS(wlansec_key_new_enhanced(8, tk, 15, &key), WLANSEC_ERR_KEY_LENGTH, "short TK");

        CHECK_STATUS(wlansec_protect(NULL, buf, sizeof(buf), 24, 1, 0, NULL), WLANSEC_ERR_NULL_POINTER, "NULL key");
        CHECK_STATUS(wlansec_protect(ccmp, NULL, 64, 24, 1, 0, NULL), WLANSEC_ERR_NULL_POINTER, "NULL buffer");
        CHECK_STATUS(wlansec_protect(ccmp, buf, 39, 24, 1, 0, NULL), WLANSEC_ERR_BUFFER_TOO_SMALL,
                     "no room for the overhead");
        CHECK_STATUS(wlansec_protect(ccmp, buf, sizeof(buf), 24, 1ULL << 48, 0, NULL), WLANSEC_ERR_INVALID_ARGUMENT,
                     "PN of 49 bits");
        CHECK_STATUS(wlansec_protect(ccmp, buf, sizeof(buf), 24, 1, 4, NULL), WLANSEC_ERR_INVALID_ARGUMENT, "Key ID 4");
        CHECK_STATUS(wlansec_protect(ccmp, buf, sizeof(buf), 65, 1, 0, NULL), WLANSEC_ERR_INVALID_ARGUMENT,
                     "MPDU longer than the buffer");
        CHECK_STATUS(wlansec_protect(ccmp, buf, sizeof(buf), 10, 1, 0, NULL), WLANSEC_ERR_MALFORMED_FRAME,
                     "10-octet MPDU");
        CHECK_STATUS(wlansec_unprotect(gcmp, buf, 30, NULL, NULL, NULL), WLANSEC_ERR_MALFORMED_FRAME,
                     "frame too short for a GCMP MPDU");

        CHECK_STATUS(wlansec_seal(ccmp, nonce, 12, aad, sizeof(aad), data, sizeof(data), mic, 8),
                     WLANSEC_ERR_INVALID_ARGUMENT, "12-octet CCM nonce");
        CHECK_STATUS(wlansec_seal(ccmp, nonce, 13, aad, sizeof(aad), data, sizeof(data), mic, 16),
                     WLANSEC_ERR_INVALID_ARGUMENT, "16-octet MIC for CCMP-128");
        CHECK_STATUS(wlansec_seal(ccmp, nonce, 13, aad, 14, data, sizeof(data), mic, 8), WLANSEC_ERR_UNSUPPORTED,
                     "14-octet AAD on the engine");
        CHECK_STATUS(wlansec_seal(gcmp, nonce, 12, aad, sizeof(aad), data, sizeof(data), NULL, 16),
                     WLANSEC_ERR_NULL_POINTER, "NULL MIC");
        CHECK_STATUS(wlansec_open(gcmp, nonce, 12, aad, sizeof(aad), data, sizeof(data), mic, 16),
                     WLANSEC_ERR_MIC_FAILURE, "zero MIC");

        CHECK_STATUS(wlansec_burst_new(0, &none), WLANSEC_ERR_INVALID_ARGUMENT, "capacity 0");
        CHECK(none == NULL, "failed burst_new sets *out to NULL");
        CHECK_STATUS(wlansec_burst_seal(NULL, NULL, 0), WLANSEC_ERR_NULL_POINTER, "NULL burst");
        CHECK_STATUS(wlansec_burst_seal(burst, NULL, 3), WLANSEC_ERR_NULL_POINTER, "NULL jobs");
        CHECK_STATUS(wlansec_burst_submit(burst, 2, NULL, 0, &accepted), WLANSEC_ERR_INVALID_ARGUMENT, "op 2");
        CHECK(accepted == 0, "accepted %zu", accepted);
        CHECK(wlansec_burst_poll(NULL, NULL, 4) == 0, "poll of NULL");

        CHECK(wlansec_key_overhead(ccmp) == 16 && wlansec_key_overhead(gcmp) == 24 && wlansec_key_overhead(NULL) == 0,
              "overheads");
        CHECK(wlansec_key_mic_len(ccmp) == 8 && wlansec_key_mic_len(gcmp) == 16, "MIC lengths");
        for (int s = WLANSEC_OK; s <= WLANSEC_ERR_NO_KEY; s++)
                CHECK(strcmp(wlansec_status_message(s), "unknown status") != 0, "message of %d", s);
        CHECK(strcmp(wlansec_status_message(-7), "unknown status") == 0, "message of -7");
        wlansec_key_free(NULL);
        wlansec_key_free(gcmp);
        wlansec_key_free(ccmp);
}

enum { FRAMES = 150, MAX_DATA = 1600 };

struct frame {
        uint8_t nonce[13];
        uint8_t aad[30];
        size_t aad_len;
        uint8_t plain[MAX_DATA];
        uint8_t data[MAX_DATA];
        size_t len;
        uint8_t mic[16];
};

static struct frame frames[FRAMES];

/* Random CCMP-shaped frames: 13-octet nonce, 22..30-octet AAD, 0..MAX_DATA octets. */
static void make_frames(void)
{
        for (size_t i = 0; i < FRAMES; i++) {
                struct frame *f = &frames[i];

                fill_random(f->nonce, sizeof(f->nonce));
                f->aad_len = 22 + random_below(9);
                fill_random(f->aad, f->aad_len);
                f->len = i < 4 ? i : random_below(MAX_DATA + 1);
                fill_random(f->plain, f->len);
                memcpy(f->data, f->plain, f->len);
        }
}

static wlansec_job job_of(const wlansec_key *key, struct frame *f, size_t at)
{
        wlansec_job job = {.key = key, .aad = f->aad, .aad_len = f->aad_len, .data = f->data, .data_len = f->len,
                           .mic = f->mic, .user_data = (void *)(uintptr_t)at, .status = -1};

        memcpy(job.nonce, f->nonce, sizeof(job.nonce));
        return job;
}

/* The queued burst gives what one-frame seal gives, hands jobs back in submission order,
 * reports a job whose key is not an engine suite and a tampered frame, and refuses jobs
 * beyond its capacity. */
static void test_burst_queue(void)
{
        static const uint8_t tk[16] = {0x42};
        static wlansec_job jobs[FRAMES], done[FRAMES];
        wlansec_key *key = NULL, *gcmp = new_key(WLANSEC_SUITE_GCMP128, tk, 16);
        wlansec_burst *queue = NULL;
        uint8_t mic[8];
        size_t accepted = 0, polled = 0;

        CHECK_STATUS(wlansec_key_new_enhanced(4, tk, sizeof(tk), &key), WLANSEC_OK, "Enhanced-4 key");
        CHECK_STATUS(wlansec_burst_new(100, &queue), WLANSEC_OK, "queue");
        make_frames();
        for (size_t i = 0; i < FRAMES; i++)
                jobs[i] = job_of(i == 7 ? gcmp : key, &frames[i], i);
        CHECK_STATUS(wlansec_burst_submit(queue, WLANSEC_OP_SEAL, jobs, FRAMES, &accepted), WLANSEC_ERR_QUEUE_FULL,
                     "150 jobs into 100 places");
        CHECK(accepted == 100, "accepted %zu", accepted);
        /* 64 or more waiting: the queue ran all it held before returning. */
        polled = wlansec_burst_poll(queue, done, FRAMES);
        CHECK(polled == 100, "polled %zu after the first submission", polled);
        CHECK_STATUS(wlansec_burst_submit(queue, WLANSEC_OP_SEAL, jobs + 100, FRAMES - 100, &accepted), WLANSEC_OK,
                     "the rest");
        CHECK_STATUS(wlansec_burst_flush(queue), WLANSEC_OK, "flush");
        polled += wlansec_burst_poll(queue, done + polled, FRAMES);
        CHECK(polled == FRAMES, "polled %zu", polled);
        for (size_t i = 0; i < polled; i++) {
                struct frame *f = &frames[i];
                uint8_t data[MAX_DATA];

                CHECK((uintptr_t)done[i].user_data == i, "completion %zu in submission order", i);
                if (i == 7) {
                        CHECK(done[i].status == WLANSEC_ERR_UNSUPPORTED, "a GCMP key in a burst: %d", done[i].status);
                        continue;
                }
                memcpy(data, f->plain, f->len);
                CHECK_STATUS(wlansec_seal(key, f->nonce, 13, f->aad, f->aad_len, data, f->len, mic, 8), WLANSEC_OK,
                             "frame %zu", i);
                CHECK(done[i].status == WLANSEC_OK && memcmp(data, f->data, f->len) == 0 &&
                              memcmp(mic, f->mic, 8) == 0,
                      "queued frame %zu as one-frame seal", i);
        }
        /* Open them again, one frame tampered: it alone fails and keeps its ciphertext. */
        frames[3].data[0] ^= 0x80;
        for (size_t i = 0; i < FRAMES; i++)
                jobs[i] = job_of(key, &frames[i], i);
        CHECK_STATUS(wlansec_burst_submit(queue, WLANSEC_OP_OPEN, jobs, 50, &accepted), WLANSEC_OK, "open");
        CHECK_STATUS(wlansec_burst_flush(queue), WLANSEC_OK, "flush");
        CHECK(wlansec_burst_poll(queue, done, FRAMES) == 50, "50 opened");
        for (size_t i = 0; i < 50; i++) {
                if (i == 7)
                        continue;
                CHECK(done[i].status == (i == 3 ? WLANSEC_ERR_MIC_FAILURE : WLANSEC_OK), "open %zu: %d", i,
                      done[i].status);
                CHECK(i == 3 || memcmp(frames[i].data, frames[i].plain, frames[i].len) == 0, "opened %zu", i);
        }
        CHECK(frames[3].data[0] != frames[3].plain[0] || frames[3].len == 0, "tampered frame kept its ciphertext");
        wlansec_burst_free(queue);
        wlansec_key_free(gcmp);
        wlansec_key_free(key);
}

/* Submit `n` packets (all taken: the rings have room) and poll them all back. */
static void engine_round(wlansec_engine *engine, unsigned direction, wlansec_packet **packets, size_t n)
{
        wlansec_packet *in[32];
        size_t accepted = 0, polled = 0;

        memcpy(in, packets, n * sizeof(*in));
        CHECK_STATUS(wlansec_engine_submit(engine, direction, in, n, &accepted), WLANSEC_OK, "submit");
        CHECK(accepted == n && in[0] == NULL, "taken %zu of %zu, entries set to NULL", accepted, n);
        while (polled < accepted) {
                if (wlansec_engine_stopped(engine)) {
                        fprintf(stderr, "FAIL: a worker stopped with %zu packets in flight\n", accepted - polled);
                        exit(1);
                }
                wlansec_engine_wait(engine, accepted - polled, 100000);
                polled += wlansec_engine_poll(engine, packets + polled, n - polled);
        }
}

/* The per-core engine: one station's MPDUs protected with PNs 1, 2, ... as wlansec_protect
 * does, opened again, and the same frames once more refused as replays; a station without
 * a key refused. */
static void test_per_core_engine(void)
{
        const struct vector *v = &vectors[0]; /* a CCMP-128 data frame */
        enum { N = 20 };
        wlansec_engine *engine = NULL;
        wlansec_packet *packets[N + 1];
        wlansec_key *key = new_key(WLANSEC_SUITE_CCMP128, v->tk, v->tk_len);
        const uint8_t *mpdu;
        uint8_t want[256];
        size_t len, want_len;

        CHECK_STATUS(wlansec_engine_new(2, WLANSEC_MAX_RING_CAPACITY + 1, &engine), WLANSEC_ERR_INVALID_ARGUMENT,
                     "a ring too large");
        CHECK_STATUS(wlansec_engine_new(WLANSEC_MAX_CORES + 1, 0, &engine), WLANSEC_ERR_INVALID_ARGUMENT,
                     "too many cores");
        CHECK_STATUS(wlansec_packet_new(SIZE_MAX, &packets[0]), WLANSEC_ERR_INVALID_ARGUMENT, "a packet too large");
        CHECK(packets[0] == NULL, "failed packet_new sets *out to NULL");
        CHECK_STATUS(wlansec_engine_submit(NULL, 0, packets, 1, NULL), WLANSEC_ERR_NULL_POINTER, "NULL engine");
        CHECK_STATUS(wlansec_engine_new(2, 0, &engine), WLANSEC_OK, "engine");
        CHECK_STATUS(wlansec_engine_submit(engine, 0, packets, 1, NULL), WLANSEC_ERR_NULL_POINTER, "NULL packet");
        CHECK_STATUS(wlansec_engine_submit(engine, 2, packets, 0, NULL), WLANSEC_ERR_INVALID_ARGUMENT, "direction 2");
        CHECK(wlansec_engine_cores(engine) == 2, "two workers");
        CHECK(wlansec_engine_stopped(engine) == 0 && wlansec_engine_stopped(NULL) == 0, "no worker stopped");
        CHECK_STATUS(wlansec_engine_add_station(engine, 7, 1, v->tk, v->tk_len), WLANSEC_OK, "station 7");
        for (size_t i = 0; i <= N; i++) {
                CHECK_STATUS(wlansec_packet_new(v->plain_len, &packets[i]), WLANSEC_OK, "packet");
                CHECK_STATUS(wlansec_packet_set(packets[i], i == N ? 8 : 7, i, v->plain, v->plain_len), WLANSEC_OK,
                             "fill");
        }
        engine_round(engine, WLANSEC_PROTECT, packets, N + 1);
        for (size_t i = 0; i <= N; i++) {
                uint64_t tag = wlansec_packet_tag(packets[i]);
                wlansec_status status = wlansec_packet_result(packets[i], &mpdu, &len);

                if (wlansec_packet_station(packets[i]) == 8) {
                        CHECK(status == WLANSEC_ERR_NO_KEY, "station without a key: %d", status);
                        continue;
                }
                memcpy(want, v->plain, v->plain_len);
                CHECK_STATUS(wlansec_protect(key, want, sizeof(want), v->plain_len, tag + 1, 0, &want_len), WLANSEC_OK,
                             "protect");
                CHECK(status == WLANSEC_OK && len == want_len && memcmp(mpdu, want, len) == 0,
                      "packet %llu as wlansec_protect with PN %llu", (unsigned long long)tag,
                      (unsigned long long)tag + 1);
        }
        for (int round = 0; round < 2; round++) {
                for (size_t i = 0; i <= N; i++) {
                        if (wlansec_packet_station(packets[i]) == 8) {
                                wlansec_packet *keyless = packets[i];

                                packets[i] = packets[N];
                                packets[N] = keyless;
                        }
                }
                for (size_t i = 0; i < N; i++) {
                        uint64_t tag = wlansec_packet_tag(packets[i]);

                        memcpy(want, v->plain, v->plain_len);
                        wlansec_protect(key, want, sizeof(want), v->plain_len, tag + 1, 0, &want_len);
                        wlansec_packet_set(packets[i], 7, tag, want, want_len);
                }
                engine_round(engine, WLANSEC_UNPROTECT, packets, N);
                for (size_t i = 0; i < N; i++) {
                        wlansec_status status = wlansec_packet_result(packets[i], &mpdu, &len);

                        if (round == 0)
                                CHECK(status == WLANSEC_OK && len == v->plain_len &&
                                              memcmp(mpdu + 2, v->plain + 2, len - 2) == 0,
                                      "opened %zu: %d", i, status);
                        else
                                CHECK(status == WLANSEC_ERR_REPLAY, "replay %zu refused: %d", i, status);
                }
        }
        for (size_t i = 0; i <= N; i++)
                wlansec_packet_free(packets[i]);
        wlansec_engine_free(engine);
        wlansec_key_free(key);
}

#ifdef WLANSEC_TEST_IPSEC_MB
/* AES-CCM (tag `tag_len`) of one frame through intel-ipsec-mb's job API. */
static int imb_ccm(IMB_MGR *mgr, const void *enc_keys, unsigned key_len, struct frame *f, uint8_t *out,
                   uint8_t *tag, unsigned tag_len)
{
        IMB_JOB *job = IMB_GET_NEXT_JOB(mgr);

        job->cipher_mode = IMB_CIPHER_CCM;
        job->hash_alg = IMB_AUTH_AES_CCM;
        job->cipher_direction = IMB_DIR_ENCRYPT;
        job->chain_order = IMB_ORDER_HASH_CIPHER;
        job->enc_keys = enc_keys;
        job->dec_keys = enc_keys;
        job->key_len_in_bytes = key_len;
        job->src = f->plain;
        job->dst = out;
        job->cipher_start_src_offset_in_bytes = 0;
        job->msg_len_to_cipher_in_bytes = f->len;
        job->hash_start_src_offset_in_bytes = 0;
        job->msg_len_to_hash_in_bytes = f->len;
        job->iv = f->nonce;
        job->iv_len_in_bytes = 13;
        job->u.CCM.aad = f->aad;
        job->u.CCM.aad_len_in_bytes = f->aad_len;
        job->auth_tag_output = tag;
        job->auth_tag_output_len_in_bytes = tag_len;
        job = IMB_SUBMIT_JOB(mgr);
        while (job == NULL)
                job = IMB_FLUSH_JOB(mgr);
        return job->status == IMB_STATUS_COMPLETED ? 0 : -1;
}

/* Random frames: CCMP-128 (one frame and a burst), CCMP-256 and GCMP-128/256 against
 * intel-ipsec-mb; Enhanced CCMP-N's CTR encryption is CCMP-128's, so its ciphertext too. */
static void test_against_ipsec_mb(wlansec_burst *burst)
{
        DECLARE_ALIGNED(uint8_t enc128[16 * 15], 16);
        DECLARE_ALIGNED(uint8_t enc256[16 * 15], 16);
        DECLARE_ALIGNED(uint8_t dec[16 * 15], 16);
        DECLARE_ALIGNED(struct gcm_key_data gcm128, 64);
        DECLARE_ALIGNED(struct gcm_key_data gcm256, 64);
        struct gcm_context_data ctx;
        static wlansec_job jobs[FRAMES];
        uint8_t tk[32], want[MAX_DATA], want_mic[16], mic[16];
        wlansec_key *keys[4], *enhanced[3];
        IMB_MGR *mgr = alloc_mb_mgr(0);
        IMB_ARCH arch;

        CHECK(mgr != NULL, "intel-ipsec-mb manager");
        if (mgr == NULL)
                return;
        init_mb_mgr_auto(mgr, &arch);
        fill_random(tk, sizeof(tk));
        IMB_AES_KEYEXP_128(mgr, tk, enc128, dec);
        IMB_AES_KEYEXP_256(mgr, tk, enc256, dec);
        IMB_AES128_GCM_PRE(mgr, tk, &gcm128);
        IMB_AES256_GCM_PRE(mgr, tk, &gcm256);
        keys[0] = new_key(WLANSEC_SUITE_CCMP128, tk, 16);
        keys[1] = new_key(WLANSEC_SUITE_CCMP256, tk, 32);
        keys[2] = new_key(WLANSEC_SUITE_GCMP128, tk, 16);
        keys[3] = new_key(WLANSEC_SUITE_GCMP256, tk, 32);
        for (unsigned n = 0; n < 3; n++)
                CHECK_STATUS(wlansec_key_new_enhanced(2u << n, tk, 16, &enhanced[n]), WLANSEC_OK, "N = %u", 2u << n);

        make_frames();
        for (size_t i = 0; i < FRAMES; i++) {
                struct frame *f = &frames[i];

                /* CCMP-128 and Enhanced CCMP-N. */
                CHECK(imb_ccm(mgr, enc128, IMB_KEY_128_BYTES, f, want, want_mic, 8) == 0, "ipsec-mb CCM-128 %zu", i);
                memcpy(f->data, f->plain, f->len);
                CHECK_STATUS(wlansec_seal(keys[0], f->nonce, 13, f->aad, f->aad_len, f->data, f->len, mic, 8),
                             WLANSEC_OK, "CCMP-128 %zu", i);
                CHECK(memcmp(f->data, want, f->len) == 0 && memcmp(mic, want_mic, 8) == 0, "CCMP-128 frame %zu", i);
                for (unsigned n = 0; n < 3; n++) {
                        memcpy(f->data, f->plain, f->len);
                        CHECK_STATUS(wlansec_seal(enhanced[n], f->nonce, 13, f->aad, f->aad_len, f->data, f->len, mic, 8),
                                     WLANSEC_OK, "Enhanced %zu", i);
                        CHECK(memcmp(f->data, want, f->len) == 0, "Enhanced CCMP-%u ciphertext of frame %zu", 2u << n, i);
                        CHECK_STATUS(wlansec_open(enhanced[n], f->nonce, 13, f->aad, f->aad_len, f->data, f->len, mic, 8),
                                     WLANSEC_OK, "Enhanced open %zu", i);
                        CHECK(memcmp(f->data, f->plain, f->len) == 0, "Enhanced CCMP-%u round trip %zu", 2u << n, i);
                }
                /* CCMP-256. */
                CHECK(imb_ccm(mgr, enc256, IMB_KEY_256_BYTES, f, want, want_mic, 16) == 0, "ipsec-mb CCM-256 %zu", i);
                memcpy(f->data, f->plain, f->len);
                CHECK_STATUS(wlansec_seal(keys[1], f->nonce, 13, f->aad, f->aad_len, f->data, f->len, mic, 16),
                             WLANSEC_OK, "CCMP-256 %zu", i);
                CHECK(memcmp(f->data, want, f->len) == 0 && memcmp(mic, want_mic, 16) == 0, "CCMP-256 frame %zu", i);
                /* GCMP-128 and GCMP-256: the first 12 nonce octets as the GCM IV. */
                for (unsigned g = 0; g < 2; g++) {
                        if (g == 0)
                                IMB_AES128_GCM_ENC(mgr, &gcm128, &ctx, want, f->plain, f->len, f->nonce, f->aad,
                                                   f->aad_len, want_mic, 16);
                        else
                                IMB_AES256_GCM_ENC(mgr, &gcm256, &ctx, want, f->plain, f->len, f->nonce, f->aad,
                                                   f->aad_len, want_mic, 16);
                        memcpy(f->data, f->plain, f->len);
                        CHECK_STATUS(wlansec_seal(keys[2 + g], f->nonce, 12, f->aad, f->aad_len, f->data, f->len, mic,
                                                  16),
                                     WLANSEC_OK, "GCMP %zu", i);
                        CHECK(memcmp(f->data, want, f->len) == 0 && memcmp(mic, want_mic, 16) == 0,
                              "GCMP-%u frame %zu", g ? 256 : 128, i);
                }
                memcpy(f->data, f->plain, f->len);
                jobs[i] = job_of(keys[0], f, i);
        }
        /* The whole set as one CCMP-128 burst. */
        CHECK_STATUS(wlansec_burst_seal(burst, jobs, FRAMES), WLANSEC_OK, "burst");
        for (size_t i = 0; i < FRAMES; i++) {
                struct frame *f = &frames[i];

                CHECK(imb_ccm(mgr, enc128, IMB_KEY_128_BYTES, f, want, want_mic, 8) == 0, "ipsec-mb %zu", i);
                CHECK(jobs[i].status == WLANSEC_OK && memcmp(f->data, want, f->len) == 0 &&
                              memcmp(f->mic, want_mic, 8) == 0,
                      "burst frame %zu", i);
        }
        CHECK_STATUS(wlansec_burst_open(burst, jobs, FRAMES), WLANSEC_OK, "burst open");
        for (size_t i = 0; i < FRAMES; i++)
                CHECK(jobs[i].status == WLANSEC_OK && memcmp(frames[i].data, frames[i].plain, frames[i].len) == 0,
                      "burst open %zu", i);
        for (unsigned k = 0; k < 4; k++)
                wlansec_key_free(keys[k]);
        for (unsigned n = 0; n < 3; n++)
                wlansec_key_free(enhanced[n]);
        free_mb_mgr(mgr);
}
#endif

int main(void)
{
        wlansec_burst *burst = NULL;

        CHECK_STATUS(wlansec_burst_new(256, &burst), WLANSEC_OK, "burst");
        test_published_vectors(burst);
        test_refusals(burst);
        test_burst_queue();
        test_per_core_engine();
#ifdef WLANSEC_TEST_IPSEC_MB
        test_against_ipsec_mb(burst);
        printf("test_wlansec: checked against intel-ipsec-mb %s\n", IMB_VERSION_STR);
#else
        printf("test_wlansec: skipped: intel-ipsec-mb not installed\n");
#endif
        wlansec_burst_free(burst);
        printf("test_wlansec (engine backend %s): %s\n", wlansec_backend_name(), failures ? "FAILED" : "ok");
        return failures ? 1 : 0;
}
