// Nettle's AES-128 and CTR mode, for Cast Streaming's per-frame encryption (imported by CastStreaming only).
#ifndef CASTOR_CNETTLE_SHIM_H
#define CASTOR_CNETTLE_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <nettle/aes.h>
#include <nettle/ctr.h>

/// Expands a 16-byte AES-128 key into `ctx` (nettle names its functions through macros Swift does not import).
static inline void castor_aes128_set_key(struct aes128_ctx *ctx, const uint8_t *key) {
    aes128_set_encrypt_key(ctx, key);
}

/// AES-128 in counter mode: the 16-byte big-endian `counter` is the first counter block and is
/// advanced past the blocks used. `ctr_crypt` takes the block cipher as a generic function pointer,
/// which Swift cannot form from `aes128_encrypt`'s typed signature.
static inline void castor_aes128_ctr(const struct aes128_ctx *ctx, uint8_t *counter, size_t length, uint8_t *dst,
                                     const uint8_t *src) {
    ctr_crypt(ctx, (nettle_cipher_func *)aes128_encrypt, AES_BLOCK_SIZE, counter, length, dst, src);
}

#endif
