/*
 * `wlansec bench ccmp`: intel-ipsec-mb's AES-CCM-128 through its job API and its burst API.
 *
 * Built by build.rs only where <intel-ipsec-mb.h> exists. The library itself is loaded at
 * run time (dlopen), so the wlansec binary starts on machines without it; only the manager's
 * allocation and set-up are looked up by name, every job call goes through the function
 * pointers that init_mb_mgr_* puts in IMB_MGR (the header's macros). IMB_MGR's layout is
 * this header's, hence the version check in wimb_open.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <intel-ipsec-mb.h>

/* One CCM frame: encrypted in place, its MIC written to `mic`. The Rust side (ipsec_mb.rs)
 * mirrors this layout. */
struct wimb_frame {
        const void *enc_keys; /* IMB_AES_KEYEXP_128's encryption schedule, 16-byte aligned */
        const uint8_t *aad;
        uint8_t *data;
        uint64_t aad_len;
        uint64_t len;
        uint8_t nonce[13];
        uint8_t mic[8];
};
_Static_assert(sizeof(struct wimb_frame) == 64, "wimb_frame layout shared with ipsec_mb.rs");

struct wimb {
        void *lib;
        IMB_MGR *mgr;
        void (*free_mgr)(IMB_MGR *);
        const char *(*strerror)(int);
};

/* wimb_open's outcomes besides 0; the Rust side names them. */
enum {
        WIMB_NO_LIBRARY = 1,
        WIMB_NO_SYMBOL = 2,
        WIMB_OTHER_VERSION = 3,
        WIMB_NO_MEMORY = 4,
};

/* A job that did not complete: the manager's error number, or this when it has none. */
#define WIMB_JOB_FAILED (-1)
/* Fewer jobs came back than went in. */
#define WIMB_JOBS_LOST (-2)

void wimb_close(struct wimb *h)
{
        if (h == NULL)
                return;
        if (h->mgr != NULL)
                h->free_mgr(h->mgr);
        if (h->lib != NULL)
                dlclose(h->lib);
        free(h);
}

/* A manager set up by init_mb_mgr_auto (`want` IMB_ARCH_NONE) or for the architecture
 * `want`; `arch` tells which architecture it runs. */
int wimb_open(struct wimb **out, unsigned want, unsigned *version, unsigned *arch)
{
        static const char *const init_names[IMB_ARCH_NUM] = {
                [IMB_ARCH_NONE] = "init_mb_mgr_auto",
                [IMB_ARCH_SSE] = "init_mb_mgr_sse",
                [IMB_ARCH_AVX] = "init_mb_mgr_avx",
                [IMB_ARCH_AVX2] = "init_mb_mgr_avx2",
                [IMB_ARCH_AVX512] = "init_mb_mgr_avx512",
        };
        IMB_MGR *(*alloc_mgr)(uint64_t);
        void (*init_auto)(IMB_MGR *, IMB_ARCH *) = NULL;
        void (*init_arch)(IMB_MGR *) = NULL;
        unsigned (*get_version)(void);
        IMB_ARCH used = IMB_ARCH_NONE;
        struct wimb *h = calloc(1, sizeof(*h));

        *out = NULL;
        if (want >= IMB_ARCH_NUM || init_names[want] == NULL) {
                free(h);
                return WIMB_NO_SYMBOL;
        }
        if (h == NULL)
                return WIMB_NO_MEMORY;
        /* libipsec-mb1 ships the versioned name; the -dev package adds the bare one. */
        h->lib = dlopen("libIPSec_MB.so.1", RTLD_NOW | RTLD_LOCAL);
        if (h->lib == NULL)
                h->lib = dlopen("libIPSec_MB.so", RTLD_NOW | RTLD_LOCAL);
        if (h->lib == NULL) {
                wimb_close(h);
                return WIMB_NO_LIBRARY;
        }
        *(void **)&alloc_mgr = dlsym(h->lib, "alloc_mb_mgr");
        if (want == IMB_ARCH_NONE)
                *(void **)&init_auto = dlsym(h->lib, init_names[want]);
        else
                *(void **)&init_arch = dlsym(h->lib, init_names[want]);
        *(void **)&h->free_mgr = dlsym(h->lib, "free_mb_mgr");
        *(void **)&get_version = dlsym(h->lib, "imb_get_version");
        *(void **)&h->strerror = dlsym(h->lib, "imb_get_strerror");
        if (alloc_mgr == NULL || (init_auto == NULL && init_arch == NULL) || h->free_mgr == NULL ||
            get_version == NULL) {
                wimb_close(h);
                return WIMB_NO_SYMBOL;
        }
        *version = get_version();
        /* The manager's function-pointer table is laid out as in the header we were built
         * with; another minor version may move them. */
        if ((*version >> 8) != (IMB_VERSION_NUM >> 8)) {
                wimb_close(h);
                return WIMB_OTHER_VERSION;
        }
        h->mgr = alloc_mgr(0);
        if (h->mgr == NULL) {
                wimb_close(h);
                return WIMB_NO_MEMORY;
        }
        if (init_auto != NULL) {
                init_auto(h->mgr, &used);
        } else {
                init_arch(h->mgr);
                used = (IMB_ARCH)h->mgr->used_arch;
        }
        *arch = (unsigned)used;
        *out = h;
        return 0;
}

unsigned wimb_header_version(void)
{
        return IMB_VERSION_NUM;
}

const char *wimb_strerror(const struct wimb *h, int error)
{
        return (h->strerror != NULL && error > 0) ? h->strerror(error) : NULL;
}

/* The AES-128 encryption schedule (11 round keys) into `enc`, 16-byte aligned. */
void wimb_keyexp_128(const struct wimb *h, const uint8_t key[16], void *enc)
{
        DECLARE_ALIGNED(uint8_t dec[16 * 15], 16);

        IMB_AES_KEYEXP_128(h->mgr, key, enc, dec);
        /* CCM uses only the encryption schedule; the other is key material too. */
        explicit_bzero(dec, sizeof(dec));
}

static void fill(IMB_JOB *job, struct wimb_frame *f)
{
        job->cipher_mode = IMB_CIPHER_CCM;
        job->hash_alg = IMB_AUTH_AES_CCM;
        job->cipher_direction = IMB_DIR_ENCRYPT;
        /* CCM encryption: the CBC-MAC runs over the plaintext. */
        job->chain_order = IMB_ORDER_HASH_CIPHER;
        job->enc_keys = f->enc_keys;
        job->dec_keys = f->enc_keys;
        job->key_len_in_bytes = IMB_KEY_128_BYTES;
        job->src = f->data;
        job->dst = f->data;
        job->cipher_start_src_offset_in_bytes = 0;
        job->msg_len_to_cipher_in_bytes = f->len;
        job->hash_start_src_offset_in_bytes = 0;
        job->msg_len_to_hash_in_bytes = f->len;
        job->iv = f->nonce;
        job->iv_len_in_bytes = sizeof(f->nonce);
        job->u.CCM.aad = f->aad;
        job->u.CCM.aad_len_in_bytes = f->aad_len;
        job->auth_tag_output = f->mic;
        job->auth_tag_output_len_in_bytes = sizeof(f->mic);
}

/* Record the first failure among `n` returned jobs; count them. */
static void collect(IMB_MGR *mgr, IMB_JOB **jobs, uint32_t n, size_t *done, int *error)
{
        for (uint32_t i = 0; i < n; i++) {
                if (jobs[i]->status != IMB_STATUS_COMPLETED && *error == 0)
                        *error = mgr->imb_errno > 0 ? mgr->imb_errno : WIMB_JOB_FAILED;
        }
        *done += n;
}

/* Seal `n` frames through the job API: every frame submitted before any is waited for
 * (IMB_SUBMIT_JOB hands back whichever job completes), then flushed. 0 or an error. */
int wimb_seal_jobs(const struct wimb *h, struct wimb_frame *frames, size_t n)
{
        IMB_MGR *mgr = h->mgr;
        IMB_JOB *job;
        size_t done = 0;
        int error = 0;

        for (size_t i = 0; i < n; i++) {
                fill(IMB_GET_NEXT_JOB(mgr), &frames[i]);
                job = IMB_SUBMIT_JOB(mgr);
                if (job != NULL)
                        collect(mgr, &job, 1, &done, &error);
        }
        while ((job = IMB_FLUSH_JOB(mgr)) != NULL)
                collect(mgr, &job, 1, &done, &error);
        if (error == 0 && done != n)
                error = WIMB_JOBS_LOST;
        return error;
}

/* Seal `n` frames through the burst API (up to IMB_MAX_BURST_SIZE jobs per submission),
 * then flush. 0 or an error. Every flush asks for exactly the jobs in flight: asked for more,
 * 1.3's IMB_FLUSH_BURST hands back more than there are at some queue positions (seen here:
 * 15 in flight, 128 returned, the queue corrupt). */
int wimb_seal_burst(const struct wimb *h, struct wimb_frame *frames, size_t n)
{
        IMB_MGR *mgr = h->mgr;
        IMB_JOB *jobs[IMB_MAX_BURST_SIZE];
        size_t next = 0, done = 0;
        int error = 0;

        while (next < n && error == 0) {
                uint32_t want = n - next < IMB_MAX_BURST_SIZE ? (uint32_t)(n - next) : IMB_MAX_BURST_SIZE;
                uint32_t got = IMB_GET_NEXT_BURST(mgr, want, jobs);
                uint32_t completed;

                if (got == 0) {
                        /* The queue is full: complete what is in flight first. */
                        completed = IMB_FLUSH_BURST(mgr, (uint32_t)(next - done), jobs);
                        if (completed == 0)
                                return WIMB_JOBS_LOST;
                        collect(mgr, jobs, completed, &done, &error);
                        continue;
                }
                for (uint32_t i = 0; i < got; i++)
                        fill(jobs[i], &frames[next + i]);
                mgr->imb_errno = 0;
                completed = IMB_SUBMIT_BURST(mgr, got, jobs);
                if (completed == 0 && mgr->imb_errno != 0)
                        return mgr->imb_errno;
                collect(mgr, jobs, completed, &done, &error);
                next += got;
        }
        while (done < next) {
                uint32_t completed = IMB_FLUSH_BURST(mgr, (uint32_t)(next - done), jobs);

                if (completed == 0)
                        break;
                collect(mgr, jobs, completed, &done, &error);
        }
        if (error == 0 && done != n)
                error = WIMB_JOBS_LOST;
        return error;
}
