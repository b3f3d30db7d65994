// libopus's encoder for Cast Streaming's audio (imported by CastMirroring only): its settings are a
// variadic macro call, reached through these functions.
#ifndef CASTOR_COPUS_SHIM_H
#define CASTOR_COPUS_SHIM_H

#include <opus/opus.h>

static inline int castor_opus_set_bitrate(OpusEncoder *encoder, int bitrate) {
    return opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bitrate));
}

static inline int castor_opus_application_audio(void) { return OPUS_APPLICATION_AUDIO; }
static inline int castor_opus_ok(void) { return OPUS_OK; }

#endif
