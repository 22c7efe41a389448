/*
 * libwlansec: IEEE 802.11 CCMP-128/256, GCMP-128/256 and Enhanced CCMP-N, one frame at a
 * time, in bursts on a multi-buffer engine, or through a per-core engine.
 *
 * Link with `pkg-config --cflags --libs wlansec` (shared library), or link
 * PREFIX/lib/libwlansec.a and the libraries of `pkg-config --static --libs wlansec`.
 *
 * Status: every call that can fail returns a wlansec_status; wlansec_status_message() gives
 * a static message for it. Pointers and lengths are checked before use (a buffer pointer
 * may be NULL only with length 0); out-pointers documented as optional may be NULL. No
 * call unwinds or aborts on bad input: an internal error gives WLANSEC_ERR_PANIC.
 *
 * Three ways to work:
 *  - one frame at a time: wlansec_protect / wlansec_unprotect (whole MPDUs, MIC appended),
 *    wlansec_seal / wlansec_open (nonce and AAD built by the caller, MIC detached);
 *  - bursts on the calling thread (CCMP-128, Enhanced CCMP-N): wlansec_burst_seal/_open,
 *    or wlansec_burst_submit, _flush, _poll;
 *  - the per-core engine: MPDUs of many stations submitted as packets to one worker thread
 *    per core (wlansec_engine_submit), which keeps each station's key, transmit PN and
 *    replay counters; completions polled (wlansec_engine_poll).
 *
 * Ownership:
 *  - wlansec_key, wlansec_burst, wlansec_engine and wlansec_packet are opaque handles. The
 *    library allocates them (wlansec_key_new*, wlansec_burst_new, wlansec_engine_new,
 *    wlansec_packet_new) and the caller frees each exactly once (the matching *_free).
 *    Freeing a key (or an engine, for its stations' keys) erases the key material.
 *  - A packet belongs to the caller, except from wlansec_engine_submit (which sets the
 *    entries it took to NULL) until wlansec_engine_poll hands it back: meanwhile the engine
 *    owns it and the caller must not touch it. wlansec_engine_free frees the packets still
 *    in flight.
 *  - The library keeps no pointer to the caller's memory after a call returns, except for
 *    jobs queued with wlansec_burst_submit: the job descriptor (with its nonce) is copied,
 *    but aad, data and mic are used in place. Those buffers and the key must stay valid,
 *    and the caller must neither read nor write data and mic, from submit until
 *    wlansec_burst_poll hands the job back (or wlansec_burst_free drops it).
 *  - The temporal key given to wlansec_key_new* is copied into the handle; the caller may
 *    erase its own copy at once.
 *  - Buffers passed for writing must not overlap any other buffer of the same call or of
 *    another job in flight.
 *
 * Threads:
 *  - A wlansec_key is immutable once made: any number of threads may use the same key at
 *    the same time (wlansec_protect, wlansec_unprotect, wlansec_seal, wlansec_open, bursts).
 *    It must not be freed while any call or queued job uses it.
 *  - A wlansec_burst is one thread's engine context: one thread at a time may call it
 *    (it may move between threads). Use one per thread, as with one multi-buffer manager
 *    per core.
 *  - A wlansec_engine runs its own worker threads; one caller thread at a time may call it
 *    (it may move between threads). A packet the caller owns may go to any thread.
 *  - wlansec_status_message and wlansec_backend_name return static strings, safe from any
 *    thread.
 *
 * Packet numbers: one frame at a time and in bursts, the caller assigns transmit PNs (never
 * repeat one under a key) and keeps the receive replay counters (wlansec_unprotect reports
 * each frame's PN and Key ID); the per-core engine keeps both per station.
 */


#ifndef WLANSEC_H
#define WLANSEC_H

/* Generated from crates/wlansec-c by cbindgen: do not edit by hand. */

#include <stddef.h>
#include <stdint.h>

// One frame for the per-core engine (opaque): an MPDU in a buffer with room for the
// protection overhead, its station and the caller's tag. Made by `wlansec_packet_new`,
// freed by `wlansec_packet_free`; reused by filling it again.
typedef struct wlansec_packet wlansec_packet;

// Octets of the CCM nonce of CCMP-128/256 and Enhanced CCMP-N (`wlansec_seal`, `wlansec_job`).
#define WLANSEC_CCMP_NONCE_LEN 13

// Octets of the GCM nonce of GCMP-128/256.
#define WLANSEC_GCMP_NONCE_LEN 12

// Octets of the MIC of CCMP-128 and Enhanced CCMP-N.
#define WLANSEC_CCMP128_MIC_LEN 8

// Octets of the MIC of CCMP-256, GCMP-128 and GCMP-256.
#define WLANSEC_LONG_MIC_LEN 16

// The most workers `wlansec_engine_new` starts.
#define WLANSEC_MAX_CORES 1024

// The most packets `wlansec_engine_new` lets a worker hold in flight.
#define WLANSEC_MAX_RING_CAPACITY (1 << 20)

// The longest MPDU a packet takes: more than any the engine protects (CCMP's length field
// counts at most 65535 data octets, a MAC header at most 36).
#define WLANSEC_MAX_MPDU_LEN (1 << 17)

// What a call did: `WLANSEC_OK`, or why it refused or failed. A refused call changed
// nothing the caller can see, except where its description says otherwise.
typedef enum {
  // Success.
  WLANSEC_OK = 0,
  // A pointer the call needs was null (a buffer pointer may be null only with length 0).
  WLANSEC_ERR_NULL_POINTER = 1,
  // An argument outside its range: unknown suite, N of Enhanced CCMP-N, nonce or MIC
  // length, PN wider than 48 bits, Key ID above 3, unknown burst operation.
  WLANSEC_ERR_INVALID_ARGUMENT = 2,
  // The temporal key has the wrong length for the suite.
  WLANSEC_ERR_KEY_LENGTH = 3,
  // The buffer has no room for the suite's overhead.
  WLANSEC_ERR_BUFFER_TOO_SMALL = 4,
  // The frame is not a well-formed protected (or protectable) MPDU.
  WLANSEC_ERR_MALFORMED_FRAME = 5,
  // Well-formed but beyond what this suite or path takes (e.g. AAD length, payload
  // longer than CCMP's length field, a burst job whose key is not CCMP-128 or Enhanced
  // CCMP-N).
  WLANSEC_ERR_UNSUPPORTED = 6,
  // The MIC did not verify: wrong key or tampered frame. The data is left as it came.
  WLANSEC_ERR_MIC_FAILURE = 7,
  // A burst queue or an engine ring is full: poll completions before submitting more.
  WLANSEC_ERR_QUEUE_FULL = 8,
  // An internal error (a bug in libwlansec): the call was abandoned; the buffers it was
  // given may hold partial results.
  WLANSEC_ERR_PANIC = 9,
  // The per-core engine refused a received frame whose PN is not above the last one
  // accepted for its station and TID (a replay).
  WLANSEC_ERR_REPLAY = 10,
  // The per-core engine has no key for the packet's station.
  WLANSEC_ERR_NO_KEY = 11,
} wlansec_status;

// The suites of `wlansec_key_new` (Enhanced CCMP-N has `wlansec_key_new_enhanced`).
typedef enum {
  // CCMP-128: 16-octet TK, 8-octet MIC, on the multi-buffer engine.
  WLANSEC_SUITE_CCMP128 = 0,
  // CCMP-256: 32-octet TK, 16-octet MIC.
  WLANSEC_SUITE_CCMP256 = 1,
  // GCMP-128: 16-octet TK, 16-octet MIC.
  WLANSEC_SUITE_GCMP128 = 2,
  // GCMP-256: 32-octet TK, 16-octet MIC.
  WLANSEC_SUITE_GCMP256 = 3,
} wlansec_suite;

// The operations of `wlansec_burst_submit`.
typedef enum {
  // Encrypt `data` in place and write the MIC to `mic`.
  WLANSEC_OP_SEAL = 0,
  // Verify `mic` and decrypt `data` in place (left as ciphertext if the MIC fails).
  WLANSEC_OP_OPEN = 1,
} wlansec_op;

// What `wlansec_engine_submit` does to its packets.
typedef enum {
  // Protect each plaintext MPDU with its station's key and next PN (transmit).
  WLANSEC_PROTECT = 0,
  // Verify, replay-check and decrypt each protected MPDU from its station (receive).
  WLANSEC_UNPROTECT = 1,
} wlansec_direction;

// One thread's engine context for bursts (opaque). Made by `wlansec_burst_new`, freed by
// `wlansec_burst_free`.
typedef struct wlansec_burst wlansec_burst;

// The per-core engine (opaque). Made by `wlansec_engine_new`, freed by `wlansec_engine_free`.
typedef struct wlansec_engine wlansec_engine;

// A temporal key set up for one suite (opaque). Made by `wlansec_key_new` or
// `wlansec_key_new_enhanced`, freed by `wlansec_key_free`, which erases the key material.
typedef struct wlansec_key wlansec_key;

// One frame of a burst: CCM with the key's suite (CCMP-128 or Enhanced CCMP-N) over
// `data`, with the nonce and AAD the caller built. The caller fills every field but
// `status`, which the library sets (a `wlansec_status`).
typedef struct {
  // A CCMP-128 or Enhanced CCMP-N key (other suites: `WLANSEC_ERR_UNSUPPORTED`).
  const wlansec_key *key;
  // The 13-octet CCM nonce (CCMP: flags, A2, PN5..PN0).
  uint8_t nonce[WLANSEC_CCMP_NONCE_LEN];
  // The AAD, 15 to 30 octets (CCMP's is 22 to 30).
  const uint8_t *aad;
  size_t aad_len;
  // The data, encrypted or decrypted in place, at most 65535 octets.
  uint8_t *data;
  size_t data_len;
  // 8 octets: written when sealing, read when opening.
  uint8_t *mic;
  // Not read by the library: handed back with the job by `wlansec_burst_poll`.
  void *user_data;
  // Set by the library: `WLANSEC_OK` or why this job failed (`WLANSEC_ERR_MIC_FAILURE`
  // for a frame that did not verify).
  int status;
} wlansec_job;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

// Make a burst context whose queue holds up to `capacity` (at least 1) submitted jobs not
// yet polled, and store it in `*out` (NULL on failure). It runs on the fastest engine
// backend of this CPU (`wlansec_backend_name`).
//
// # Safety
// `out` is valid for a write of a pointer.
wlansec_status wlansec_burst_new(size_t capacity, wlansec_burst **out);

// Free a burst context. Jobs still queued are dropped: those not yet run are left
// untouched, those run but not polled are done. NULL is ignored.
//
// # Safety
// `burst` is NULL or a context from `wlansec_burst_new` not freed before and not in use.
void wlansec_burst_free(wlansec_burst *burst);

// Seal `n` jobs on the engine, interleaved across its lanes; returns when all are done,
// each job's `status` telling its outcome (the call itself fails only for a NULL `burst`,
// or a NULL `jobs` with `n` > 0). The queue is not involved.
//
// # Safety
// `burst` is a live context no other thread uses during the call; `jobs` points to `n`
// writable jobs whose pointers are valid as `wlansec_job` describes; no two jobs' `data`
// or `mic` overlap each other or any other buffer of the call.
wlansec_status wlansec_burst_seal(wlansec_burst *burst, wlansec_job *jobs, size_t n);

// Open `n` jobs (as `wlansec_burst_seal`): a job whose MIC fails gets
// `WLANSEC_ERR_MIC_FAILURE` and keeps its ciphertext.
//
// # Safety
// As `wlansec_burst_seal`.
wlansec_status wlansec_burst_open(wlansec_burst *burst, wlansec_job *jobs, size_t n);

// Queue `n` jobs for operation `op` (a `wlansec_op`), copying the job descriptors (not
// their buffers). Whenever a whole engine batch (64 jobs) is waiting, the queue runs what
// it holds before returning. `*accepted` (if not NULL) is how many jobs were queued: all
// of them, or as many as the capacity left room for, and then the call returns
// `WLANSEC_ERR_QUEUE_FULL`.
//
// # Safety
// `burst` is a live context no other thread uses during the call; `jobs` points to `n`
// readable jobs; every queued job's key and buffers stay valid, and are neither read nor
// written by the caller, until `wlansec_burst_poll` hands the job back (or the context is
// freed); no two queued jobs' `data` or `mic` overlap.
wlansec_status wlansec_burst_submit(wlansec_burst *burst,
                                    uint32_t op,
                                    const wlansec_job *jobs,
                                    size_t n,
                                    size_t *accepted);

// Run every queued job not yet run (fewer than a whole batch), so that `wlansec_burst_poll`
// can hand back everything submitted.
//
// # Safety
// `burst` is a live context no other thread uses during the call.
wlansec_status wlansec_burst_flush(wlansec_burst *burst);

// Copy up to `max` finished jobs, oldest first, to `out` (each with its `status` and
// `user_data`) and drop them from the queue; returns how many. Their buffers are the
// caller's again. 0 for a NULL `burst` or `out`.
//
// # Safety
// `burst` is NULL or a live context no other thread uses during the call; `out` is NULL
// or points to `max` writable jobs.
size_t wlansec_burst_poll(wlansec_burst *burst, wlansec_job *out, size_t max);

// Set up the temporal key `tk` (`tk_len` octets) for `suite` (a `wlansec_suite` value) and
// store a new key handle in `*out` (set to NULL on failure). Free it with `wlansec_key_free`.
//
// # Safety
// `tk` points to `tk_len` readable octets (the call keeps no pointer to them); `out` is
// valid for a write of a pointer.
wlansec_status wlansec_key_new(uint32_t suite, const uint8_t *tk, size_t tk_len, wlansec_key **out);

// Set up the 16-octet temporal key `tk` for Enhanced CCMP-N with `ways` = N = 1, 2, 4 or 8
// CBC-MAC sub-chains (N = 1 is CCMP-128) and store a new key handle in `*out` (NULL on
// failure). Its frames have CCMP-128's layout; its MIC is 8 octets.
//
// # Safety
// As `wlansec_key_new`.
wlansec_status wlansec_key_new_enhanced(uint32_t ways,
                                        const uint8_t *tk,
                                        size_t tk_len,
                                        wlansec_key **out);

// Free a key handle and erase its key material (TK schedules). NULL is ignored.
//
// # Safety
// `key` is NULL or a handle from `wlansec_key_new*` not freed before, which no call in
// any thread still uses and no submitted burst job still names.
void wlansec_key_free(wlansec_key *key);

// Octets the key's suite adds to an MPDU: 8 (PN header) plus the MIC length. 0 for NULL.
//
// # Safety
// `key` is NULL or a live key handle.
size_t wlansec_key_overhead(const wlansec_key *key);

// Octets of the key's MIC: 8 (CCMP-128, Enhanced CCMP-N) or 16. 0 for NULL.
//
// # Safety
// `key` is NULL or a live key handle.
size_t wlansec_key_mic_len(const wlansec_key *key);

// The name of the engine backend CCMP-128 and Enhanced CCMP-N run on in this process
// ("avx512-vaes", "avx2-vaes", "aes-ni" or "portable"): a static string.
const char *wlansec_backend_name(void);

// Protect the plaintext MPDU in `buf[0..mpdu_len)` in place with packet number `pn` (at
// most 2^48 - 1) under Key ID `key_id` (0..3): the MAC header is kept, the PN header
// inserted after it, the body encrypted and the MIC appended. `buf_len` is the room in
// `buf`, at least `mpdu_len + wlansec_key_overhead(key)`. The protected length is stored in
// `*out_len` (if not NULL). The caller owns PN assignment: a PN must never repeat under one key.
//
// # Safety
// `key` is a live key handle; `buf` points to `buf_len` writable octets that nothing
// else accesses during the call; `out_len` is NULL or valid for a write.
wlansec_status wlansec_protect(const wlansec_key *key,
                               uint8_t *buf,
                               size_t buf_len,
                               size_t mpdu_len,
                               uint64_t pn,
                               uint8_t key_id,
                               size_t *out_len);

// Verify and decrypt the protected MPDU that is all of `buf[0..len)`, in place: on
// success the plaintext MPDU (Protected bit cleared) is at the front of `buf`, its length
// in `*out_len`, its PN in `*out_pn` and Key ID in `*out_key_id` (each pointer may be
// NULL). On failure `buf` is left as it came. No replay check: the caller compares the PN
// with the last one it accepted for the frame's TID.
//
// # Safety
// `key` is a live key handle; `buf` points to `len` writable octets that nothing else
// accesses during the call; each out-pointer is NULL or valid for a write.
wlansec_status wlansec_unprotect(const wlansec_key *key,
                                 uint8_t *buf,
                                 size_t len,
                                 size_t *out_len,
                                 uint64_t *out_pn,
                                 uint8_t *out_key_id);

// Encrypt `data[0..data_len)` in place and write its MIC to `mic`, with the nonce and AAD
// the caller built: CCM (13-octet nonce) for CCMP-128/256 and Enhanced CCMP-N, GCM
// (12-octet nonce) for GCMP. `mic_len` is the key's MIC length (`wlansec_key_mic_len`).
// On the engine (CCMP-128, Enhanced CCMP-N) the AAD is 15 to 30 octets (CCMP's is 22 to 30).
//
// # Safety
// `key` is a live key handle; `nonce`, `aad` point to `nonce_len`, `aad_len` readable
// octets; `data`, `mic` to `data_len`, `mic_len` writable ones; the writable buffers
// overlap no other buffer of the call and nothing else accesses them during it.
wlansec_status wlansec_seal(const wlansec_key *key,
                            const uint8_t *nonce,
                            size_t nonce_len,
                            const uint8_t *aad,
                            size_t aad_len,
                            uint8_t *data,
                            size_t data_len,
                            uint8_t *mic,
                            size_t mic_len);

// Verify the MIC `mic` and decrypt `data[0..data_len)` in place (as `wlansec_seal`). On
// `WLANSEC_ERR_MIC_FAILURE` the data is left as ciphertext. The MIC is compared in
// constant time.
//
// # Safety
// As `wlansec_seal`, except that `mic` is only read.
wlansec_status wlansec_open(const wlansec_key *key,
                            const uint8_t *nonce,
                            size_t nonce_len,
                            const uint8_t *aad,
                            size_t aad_len,
                            uint8_t *data,
                            size_t data_len,
                            const uint8_t *mic,
                            size_t mic_len);

// Make a per-core engine of `cores` workers (0: one per core this process may run on; at
// most `WLANSEC_MAX_CORES`), each holding at most `ring_capacity` packets in flight (0: 1024;
// at most `WLANSEC_MAX_RING_CAPACITY`), and store it in `*out` (NULL on failure). The workers start at once and are pinned to a core each where the OS allows.
//
// # Safety
// `out` is valid for a write of a pointer.
wlansec_status wlansec_engine_new(size_t cores,
                                  size_t ring_capacity,
                                  wlansec_engine **out);

// Stop the engine's workers and free it, with every packet still in flight (submitted and
// not polled). NULL is ignored.
//
// # Safety
// `engine` is NULL or an engine from `wlansec_engine_new` not freed before and not in use.
void wlansec_engine_free(wlansec_engine *engine);

// The number of workers. 0 for NULL.
//
// # Safety
// `engine` is NULL or a live engine no other thread uses during the call.
size_t wlansec_engine_cores(const wlansec_engine *engine);

// Install (or replace) the pairwise key of `station` for the packets submitted after this
// call: the 16-octet TK for CCMP-128 (`ways` = 1) or Enhanced CCMP-N (`ways` = N = 2, 4,
// 8). Its transmit PN restarts at 1 and its replay counters at 0. The engine's frames
// carry Key ID 0.
//
// # Safety
// `engine` is a live engine no other thread uses during the call; `tk` points to `tk_len`
// readable octets (copied).
wlansec_status wlansec_engine_add_station(wlansec_engine *engine,
                                          uint32_t station,
                                          uint32_t ways,
                                          const uint8_t *tk,
                                          size_t tk_len);

// Hand packets from the front of `packets[0..n)` to the engine for `direction` (a
// `wlansec_direction`), in order, until one finds its worker's ring full. `*accepted` is how
// many the engine took: it owns them now, and their entries in `packets` are set to NULL;
// the rest stay the caller's, unchanged. `WLANSEC_ERR_QUEUE_FULL` when the first packet's
// worker was full (nothing taken). A packet for a station without a key is taken and
// completes with `WLANSEC_ERR_NO_KEY`.
//
// # Safety
// `engine` is a live engine no other thread uses during the call; `packets` points to `n`
// writable entries, each a live packet handle the caller owns (none twice).
wlansec_status wlansec_engine_submit(wlansec_engine *engine,
                                     uint32_t direction,
                                     wlansec_packet **packets,
                                     size_t n,
                                     size_t *accepted);

// Move up to `max` completed packets to `out[0..)`; returns how many. The caller owns them
// again (any thread may use them); `wlansec_packet_result` tells each one's outcome. A
// station's packets come back in the order they were submitted. 0 for a NULL `engine` or
// `out`.
//
// # Safety
// `engine` is NULL or a live engine no other thread uses during the call; `out` is NULL or
// points to `max` writable entries.
size_t wlansec_engine_poll(wlansec_engine *engine, wlansec_packet **out, size_t max);

// Wait until `count` completions (or all those in flight, if fewer) are ready to poll: 1,
// or 0 when `timeout_us` microseconds passed first. Waiting for many at a time keeps the
// caller off the workers' cores: they wake it once, when enough are ready. Packets held by
// a worker that stopped never complete: see `wlansec_engine_stopped`.
//
// # Safety
// `engine` is NULL or a live engine no other thread uses during the call.
int wlansec_engine_wait(wlansec_engine *engine, size_t count, uint64_t timeout_us);

// 1 if a worker thread has ended while the engine lives (a panic inside the engine), else 0
// (also for NULL). The packets that worker held never complete: a caller waiting for them
// should stop and free the engine.
//
// # Safety
// `engine` is NULL or a live engine no other thread uses during the call.
int wlansec_engine_stopped(const wlansec_engine *engine);

// Make an empty packet whose buffer holds an MPDU of `mpdu_capacity` octets (at most
// `WLANSEC_MAX_MPDU_LEN`), protected, without growing (it grows for longer ones), and store
// it in `*out` (NULL on failure).
//
// # Safety
// `out` is valid for a write of a pointer.
wlansec_status wlansec_packet_new(size_t mpdu_capacity, wlansec_packet **out);

// Free a packet the caller owns. NULL is ignored.
//
// # Safety
// `packet` is NULL or a live packet the caller owns (not in flight), not freed before.
void wlansec_packet_free(wlansec_packet *packet);

// Fill a packet with a copy of the MPDU `mpdu[0..len)` (at most `WLANSEC_MAX_MPDU_LEN`
// octets) for (or from) `station`, tagged `tag` (returned by `wlansec_packet_tag`, not read
// by the library).
//
// # Safety
// `packet` is a live packet the caller owns; `mpdu` points to `len` readable octets.
wlansec_status wlansec_packet_set(wlansec_packet *packet,
                                  uint32_t station,
                                  uint64_t tag,
                                  const uint8_t *mpdu,
                                  size_t len);

// The packet's outcome: `WLANSEC_OK` with its MPDU (before submission: as filled; after
// completion: protected or opened) in `*mpdu`, `*len`, or why the engine refused it. The
// MPDU pointer is valid until the packet is filled, submitted or freed.
//
// # Safety
// `packet` is a live packet the caller owns; `mpdu` and `len` are NULL or valid for a write.
wlansec_status wlansec_packet_result(const wlansec_packet *packet,
                                     const uint8_t **mpdu,
                                     size_t *len);

// The caller's tag of the packet (0 for NULL).
//
// # Safety
// `packet` is NULL or a live packet the caller owns.
uint64_t wlansec_packet_tag(const wlansec_packet *packet);

// The packet's station (0 for NULL).
//
// # Safety
// `packet` is NULL or a live packet the caller owns.
uint32_t wlansec_packet_station(const wlansec_packet *packet);

// A one-line English message for a status code: a static string the caller must not free.
// Any integer is accepted; one that is no status gives "unknown status".
const char *wlansec_status_message(int status);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* WLANSEC_H */
