/*
 * libwlansec in a few lines: protect one 802.11 data frame with CCMP-128, print it, and
 * open it again.
 *
 *   cc seal_frame.c $(pkg-config --cflags --libs wlansec) -o seal_frame && ./seal_frame
 */
#include <stdio.h>
#include <string.h>

#include <wlansec.h>

static int fail(const char *what, wlansec_status status)
{
        fprintf(stderr, "%s: %s\n", what, wlansec_status_message((int)status));
        return 1;
}

int main(void)
{
        /* The temporal key from the 4-way handshake (here: IEEE 802.11 Annex M's). */
        static const uint8_t tk[16] = {0xc9, 0x7c, 0x1f, 0x67, 0xce, 0x37, 0x11, 0x85,
                                       0x51, 0x4a, 0x8a, 0x19, 0xf2, 0xbd, 0xd5, 0x2f};
        /* A data frame (ToDS): MAC header, then an LLC/SNAP header and the payload. */
        static const uint8_t mpdu[] = {0x08, 0x01, 0x2c, 0x00, 0x0f, 0xd2, 0xe1, 0x28, 0xa5, 0x7c, 0x50, 0x30,
                                       0xf1, 0x84, 0x44, 0x08, 0xab, 0xae, 0xa5, 0xb8, 0xfc, 0xba, 0x80, 0x33,
                                       0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00, 'h',  'e',  'l',  'l',
                                       'o'};
        uint8_t buf[sizeof(mpdu) + 16]; /* room for the overhead: PN header and MIC */
        wlansec_key *key = NULL;
        wlansec_status status;
        uint64_t pn = 0;
        size_t len = 0;

        status = wlansec_key_new(WLANSEC_SUITE_CCMP128, tk, sizeof(tk), &key);
        if (status != WLANSEC_OK)
                return fail("key", status);
        memcpy(buf, mpdu, sizeof(mpdu));
        /* The transmitter's PN counter: one PN per frame, never repeated under this key. */
        status = wlansec_protect(key, buf, sizeof(buf), sizeof(mpdu), 1, 0, &len);
        if (status != WLANSEC_OK)
                return fail("protect", status);
        printf("protected (%zu octets, engine %s):", len, wlansec_backend_name());
        for (size_t i = 0; i < len; i++)
                printf(" %02x", buf[i]);
        printf("\n");

        status = wlansec_unprotect(key, buf, len, &len, &pn, NULL);
        if (status != WLANSEC_OK)
                return fail("unprotect", status);
        printf("opened: PN %llu, payload \"%.*s\"\n", (unsigned long long)pn, 5, (const char *)buf + len - 5);
        wlansec_key_free(key);
        return memcmp(buf + 2, mpdu + 2, sizeof(mpdu) - 2) == 0 && len == sizeof(mpdu) ? 0 : 1;
}
